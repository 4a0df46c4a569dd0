/** What a heartbeat is on the wire: an SSE comment (`SSE_HEARTBEAT_MS` apart; the test stack sets 1 s). */
const HEARTBEAT = ': heartbeat\n';

/**
 * A `fetch` for a protocol's official client that lets every byte through and notes when an
 * event stream it answered carried a heartbeat: the client then read one, and goes on (a chunk is
 * seen when the client reads it, so the client must be reading).
 */
export function heartbeatWatch(inner: typeof fetch = fetch): { fetch: typeof fetch; seen: () => boolean } {
  let seen = false;
  const watched: typeof fetch = async (input, init) => {
    const res = await inner(input, init);
    if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
    const decoder = new TextDecoder();
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (decoder.decode(chunk, { stream: true }).includes(HEARTBEAT)) seen = true;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: watched, seen: () => seen };
}
