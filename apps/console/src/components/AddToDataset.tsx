import { useEffect, useState } from 'react';
import type { Dataset } from '@spindle/contracts';
import { api } from '../api/client';

/** One click: the run's input (and, once it completed, its output as the expected one) as an item of a dataset. */
export function AddToDataset({ runId, completed }: { runId: string; completed: boolean }) {
  const [datasets, setDatasets] = useState<Dataset[]>();
  const [name, setName] = useState('');
  const [withOutput, setWithOutput] = useState(true);
  const [said, setSaid] = useState<string>();
  useEffect(() => {
    void api.datasets().then(
      (r) => {
        setDatasets(r.datasets);
        setName((n) => n || (r.datasets[0]?.name ?? ''));
      },
      (e: Error) => setSaid(e.message),
    );
  }, []);
  if (datasets?.length === 0) return null;
  const add = () =>
    void api.addRunToDataset(name, runId, completed && withOutput).then(
      (added) => setSaid(`added to ${name}: version ${added.version}`),
      (e: Error) => setSaid(e.message),
    );
  return (
    <span className="add-to-dataset" data-testid="add-to-dataset">
      <select value={name} onChange={(e) => setName(e.target.value)} aria-label="dataset">
        {(datasets ?? []).map((d) => (
          <option key={d.name} value={d.name}>
            {d.name}
          </option>
        ))}
      </select>
      {completed && (
        <label className="inline">
          <input type="checkbox" checked={withOutput} onChange={(e) => setWithOutput(e.target.checked)} /> output as expected
        </label>
      )}
      <button type="button" onClick={add} disabled={!name}>
        Add to dataset
      </button>
      {said && <span className="muted">{said}</span>}
    </span>
  );
}
