import { api } from '../api/client';
import { capabilityView } from '../model/runner-capabilities';
import { usePolling } from './usePolling';

/**
 * Beside a workflow: the functions and tools the live runners have (the ones it uses first), and
 * what it names that no runner has, which a save would refuse (`function_not_found`, `tool_not_found`).
 */
export function RunnerCapabilitiesPanel({ definition }: { definition: unknown }) {
  const { data, error } = usePolling(() => api.capabilities(), 10_000, []);
  if (error) return <p className="muted">The runners’ functions and tools could not be read: {error}</p>;
  if (!data) return null;
  const { rows, missing } = capabilityView(definition, data.functions, data.tools);
  return (
    <section className="runner-capabilities" data-testid="runner-capabilities">
      <h3>What the runners can run</h3>
      {missing.length > 0 && (
        <p className="error">
          No live runner has{' '}
          {missing.map((m) => (
            <span key={m.field}>
              the {m.kind} <code>{m.name}</code> ({m.field}){' '}
            </span>
          ))}
        </p>
      )}
      {rows.length === 0 ? (
        <p className="muted">No runner has announced itself: start one (`npm start` does) to see its functions and tools.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>kind</th>
              <th>name</th>
              <th>plugin</th>
              <th>runners</th>
              <th>used here</th>
              <th>description</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.kind} ${r.name} ${r.plugin} ${r.runners.join(',')}`}>
                <td>{r.kind}</td>
                <td>
                  <code>{r.name}</code>
                </td>
                <td>{r.plugin}</td>
                <td>{r.runners.join(', ')}</td>
                <td>{r.usedAt.join(', ')}</td>
                <td className="muted">{r.description.split('\n')[0]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
