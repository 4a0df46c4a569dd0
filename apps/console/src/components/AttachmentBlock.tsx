import type { FileRef } from '@spindle/contracts';
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { attachmentView } from '../model/attachment-view';

/** A file a model call sent: a thumbnail for an image, a download link for anything else, with its media type and size. */
export function AttachmentBlock({ file }: { file: FileRef }) {
  const view = attachmentView(file);
  return (
    <div className="block attachment-block" data-testid="attachment-block" data-display={view.display}>
      <div className="block-label">
        file · <b>{view.label}</b> <span className="muted">{view.mediaType}</span> <span className="muted">{view.size}</span>
      </div>
      {view.display === 'thumbnail' ? (
        <Thumbnail path={view.contentPath} alt={view.label} />
      ) : (
        <Download path={view.contentPath} name={view.label} />
      )}
    </div>
  );
}

function Thumbnail({ path, alt }: { path: string; alt: string }) {
  const [url, setUrl] = useState<string>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    const abort = new AbortController();
    let objectUrl: string | undefined;
    api.fileContent(path, abort.signal).then(
      (blob) => {
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      },
      (e: unknown) => abort.signal.aborted || setProblem(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      abort.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [path]);
  if (problem) return <div className="muted">{problem}</div>;
  return url ? <img className="attachment-thumbnail" src={url} alt={alt} /> : <div className="muted">loading…</div>;
}

function Download({ path, name }: { path: string; name: string }) {
  const [problem, setProblem] = useState<string>();
  const download = async () => {
    try {
      const url = URL.createObjectURL(await api.fileContent(path));
      const link = Object.assign(document.createElement('a'), { href: url, download: name });
      link.click();
      // After the click has started the download: the URL is not needed any more.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setProblem(undefined);
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div>
      <button type="button" onClick={() => void download()}>
        download
      </button>
      {problem && <span className="muted"> {problem}</span>}
    </div>
  );
}
