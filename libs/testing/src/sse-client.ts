/** A minimal SSE reader for tests: frames as `{ id, event, data }` until the server ends. */
export interface SseFrame {
  id?: string;
  event: string;
  data: string;
}

export async function readSse(
  url: string,
  init: RequestInit = {},
  onFrame?: (frame: SseFrame) => boolean | void,
): Promise<{ status: number; headers: Headers; frames: SseFrame[] }> {
  const controller = new AbortController();
  const res = await fetch(url, {
    ...init,
    signal: controller.signal,
    headers: { accept: 'text/event-stream', ...(init.headers as Record<string, string>) },
  });
  const frames: SseFrame[] = [];
  if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return { status: res.status, headers: res.headers, frames };
  }
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame = parseBlock(block);
        if (!frame) continue;
        frames.push(frame);
        if (onFrame?.(frame) === false) {
          controller.abort();
          return { status: res.status, headers: res.headers, frames };
        }
      }
    }
  } catch (e) {
    if (!controller.signal.aborted) throw e;
  }
  return { status: res.status, headers: res.headers, frames };
}

/** The frames of a whole event stream's text (what `curl -N` prints), comments (heartbeats) left out. */
export function parseSseText(text: string): SseFrame[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n\n+/)
    .map(parseBlock)
    .filter((frame): frame is SseFrame => frame !== undefined);
}

/** One frame's lines (no blank line among them); undefined for a block of comments only. */
export function parseBlock(block: string): SseFrame | undefined {
  const frame: SseFrame = { event: 'message', data: '' };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') frame.id = value;
    else if (field === 'event') frame.event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0 && frame.id === undefined) return undefined;
  frame.data = data.join('\n');
  return frame;
}
