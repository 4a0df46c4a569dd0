import type { SpanView } from '../model/run-view';

interface RetrievalOutput {
  chunkCount?: number;
  topScore?: number;
  chunks?: Array<{ id: string; source: string; score: number; tokens: number; text?: string }>;
}
interface RetrievalInput {
  retriever?: string;
  knowledgeBase?: string;
  version?: number;
  query?: string;
  topK?: number;
  minScore?: number;
}

/** A retrieval span: what was asked, and each chunk that could reach the prompt with its score, source and size. */
export function RetrievalView({ span }: { span: SpanView }) {
  const input = (span.input ?? {}) as RetrievalInput;
  const output = (span.output ?? {}) as RetrievalOutput;
  const chunks = output.chunks ?? [];
  return (
    <div className="retrieval" data-testid="retrieval-view">
      <dl>
        <dt>query</dt>
        <dd>{input.query}</dd>
        <dt>knowledge base</dt>
        <dd>
          {input.knowledgeBase}
          {input.version !== undefined ? ` (version ${input.version})` : ''} <span className="muted">{input.retriever}</span>
        </dd>
        <dt>asked</dt>
        <dd>
          top {input.topK}
          {input.minScore !== undefined ? `, score ≥ ${input.minScore}` : ''}
        </dd>
      </dl>
      <h4>
        {chunks.length} chunk{chunks.length === 1 ? '' : 's'}
      </h4>
      {chunks.length === 0 ? (
        <p className="muted">nothing matched</p>
      ) : (
        <table className="chunks">
          <thead>
            <tr>
              <th>score</th>
              <th>source</th>
              <th>tokens</th>
              <th>text</th>
            </tr>
          </thead>
          <tbody>
            {chunks.map((c) => (
              <tr key={c.id} data-chunk-id={c.id}>
                <td className="mono">{c.score.toFixed(3)}</td>
                <td>{c.source}</td>
                <td className="mono">{c.tokens}</td>
                <td>
                  <pre>{c.text}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
