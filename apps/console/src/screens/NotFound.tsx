/** What the console shows for a link to nothing: a run this tenant does not have, or a page that does not exist. */
export function NotFound({ what, detail }: { what: string; detail?: string }) {
  return (
    <section className="page not-found" data-testid="not-found">
      <h1>Not found</h1>
      <p>{what}</p>
      {detail && <p className="muted">{detail}</p>}
      <p>
        <a href="#/runs">Go to runs</a> · <a href="#/workflows">Go to workflows</a>
      </p>
    </section>
  );
}
