import type { RunEvent } from '@spindle/contracts';
import { useMemo } from 'react';
import { attachmentSummary, conversationOf, type ConversationBlock, type ConversationMessage } from '../model/conversation';
import { AttachmentBlock } from './AttachmentBlock';
import { cost } from './format';
import { JsonTree, LongText } from './JsonTree';

/** A model call as a conversation: what was sent, role by role, and what came back, with its finish reason, tokens and cost. */
export function ConversationView({ events, spanId }: { events: readonly RunEvent[]; spanId: string }) {
  const conversation = useMemo(() => conversationOf(events, spanId), [events, spanId]);
  if (!conversation) return null;
  const { usage } = conversation;
  const earlier = conversation.messages.filter((m) => m.earlier);
  return (
    <div className="conversation" data-testid="conversation">
      <dl className="call-facts">
        <dt>model</dt>
        <dd>
          {conversation.model}
          {conversation.responseModel && <span className="muted"> → {conversation.responseModel}</span>}
        </dd>
        {conversation.tools.length > 0 && (
          <>
            <dt>tools offered</dt>
            <dd>{conversation.tools.join(', ')}</dd>
          </>
        )}
        {conversation.attachments.length > 0 && (
          <>
            <dt>files sent</dt>
            <dd data-testid="attachment-summary">{attachmentSummary(conversation.attachments)}</dd>
          </>
        )}
        {conversation.finishReason && (
          <>
            <dt>finish reason</dt>
            <dd data-testid="finish-reason">{conversation.finishReason}</dd>
          </>
        )}
        {usage && (
          <>
            <dt>tokens</dt>
            <dd data-testid="token-split">
              {[
                `${usage.inputTokens} input`,
                `${usage.cachedInputTokens ?? 0} cached`,
                `${usage.outputTokens} output`,
                `${usage.reasoningTokens ?? 0} reasoning`,
              ].join(' · ')}
            </dd>
            <dt>cost</dt>
            <dd>{cost(usage)}</dd>
          </>
        )}
      </dl>
      {conversation.messages
        .filter((m) => m.role === 'system')
        .map((m, i) => (
          <Message key={i} message={m} />
        ))}
      {earlier.length > 0 && (
        <details className="earlier">
          <summary>
            {earlier.length} earlier message{earlier.length === 1 ? '' : 's'} sent again
          </summary>
          {earlier.map((m, i) => (
            <Message key={i} message={m} />
          ))}
        </details>
      )}
      {conversation.messages
        .filter((m) => !m.earlier && m.role !== 'system')
        .map((m, i) => (
          <Message key={i} message={m} />
        ))}
      {conversation.response ? (
        <Message message={conversation.response} answer />
      ) : conversation.error ? (
        <pre className="error-box">
          {conversation.error.code}: {conversation.error.message}
        </pre>
      ) : (
        <p className="muted">waiting for the model…</p>
      )}
    </div>
  );
}

function Message({ message, answer = false }: { message: ConversationMessage; answer?: boolean }) {
  return (
    <div className={`message role-${message.role}${answer ? ' answer' : ''}`} data-role={message.role}>
      <div className="role">{answer ? 'assistant · answer' : message.role}</div>
      {message.blocks.length === 0 && <div className="muted">(empty)</div>}
      {message.blocks.map((block, i) => (
        <Block key={i} block={block} />
      ))}
    </div>
  );
}

function Block({ block }: { block: ConversationBlock }) {
  switch (block.kind) {
    case 'text':
      return <LongText text={block.text} />;
    case 'reasoning':
      return (
        <details className="block reasoning">
          <summary>reasoning</summary>
          <LongText text={block.text} />
        </details>
      );
    case 'tool-call':
      return (
        <div className="block tool-call-block" data-testid="tool-call-block">
          <div className="block-label">
            tool call · <b>{block.name}</b> <span className="mono muted">{block.callId}</span>
          </div>
          <JsonTree value={block.arguments} />
        </div>
      );
    case 'tool-result':
      return (
        <div className={`block tool-result-block${block.isError ? ' failed' : ''}`} data-testid="tool-result-block">
          <div className="block-label">
            {block.isError ? 'tool error' : 'tool result'} · <b>{block.name}</b> <span className="mono muted">{block.callId}</span>
          </div>
          {typeof block.result === 'string' ? <LongText text={block.result} /> : <JsonTree value={block.result} />}
        </div>
      );
    case 'file':
      return <AttachmentBlock file={block.file} />;
    case 'missing':
      return (
        <div className="muted">
          an earlier message (<span className="mono">{block.hash}</span>) this run’s log does not hold
        </div>
      );
  }
}
