import { useState } from 'react';

/** A run id in full (its tail first catches the eye) with a button that copies it; clicking it never opens the row. */
export function CopyId({ id }: { id: string }) {
  const [copied, setCopied] = useState(false);
  const copy = (e: React.MouseEvent) => {
    e.stopPropagation();
    void navigator.clipboard?.writeText(id).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1200);
    });
  };
  return (
    <span className="copy-id">
      <a href={`#/runs/${id}`} className="mono" title={id} onClick={(e) => e.stopPropagation()}>
        {id}
      </a>
      <button type="button" className="icon" onClick={copy} aria-label={`copy run id ${id}`} title="Copy the run id">
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}
