/** One dispatched Server-Sent Event, as an `EventSource` would deliver it. */
export interface SseMessage {
  /** `event:`; `message` when the frame names none. */
  event: string;
  /** Every `data:` line of the frame, joined with `\n`. */
  data: string;
  /** The last `id:` seen on the stream so far (it carries over to later frames, as in `EventSource`). */
  lastEventId: string;
}

export interface SseParser {
  /** Feeds the next chunk of the response body, split anywhere (even inside a UTF-8 character or a CRLF). */
  push(chunk: Uint8Array): void;
  /** The body ended: a frame without its closing blank line is dropped, as the standard says. */
  end(): void;
}

/**
 * The event-stream format of the HTML standard (§9.2.6), for reading SSE with `fetch` (which,
 * unlike `EventSource`, can send an `Authorization` header): lines end in LF, CRLF or CR; `:`
 * starts a comment (a heartbeat); `data:` lines accumulate; a blank line dispatches the frame if it
 * has data. `retry:` and unknown fields are ignored: the caller owns reconnecting.
 */
export function createSseParser(onMessage: (message: SseMessage) => void): SseParser {
  // Strips a leading byte order mark itself (`ignoreBOM` is false by default).
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  /** The last chunk ended in CR: an LF starting the next one completes that CRLF. */
  let skipLf = false;
  let event = '';
  let data: string[] = [];
  let lastEventId = '';

  const dispatch = () => {
    if (data.length > 0) onMessage({ event: event || 'message', data: data.join('\n'), lastEventId });
    event = '';
    data = [];
  };
  const line = (text: string) => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) lastEventId = value;
  };
  const feed = (text: string) => {
    if (skipLf && text.length > 0) {
      skipLf = false;
      if (text.startsWith('\n')) text = text.slice(1);
    }
    // What is left of the buffer holds no line ending: only the new text needs scanning.
    const scanFrom = buffer.length;
    buffer += text;
    let start = 0;
    for (let i = scanFrom; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      line(buffer.slice(start, i));
      if (c === '\r' && i + 1 === buffer.length) skipLf = true;
      else if (c === '\r' && buffer[i + 1] === '\n') i++;
      start = i + 1;
    }
    buffer = buffer.slice(start);
  };

  return {
    push: (chunk) => feed(decoder.decode(chunk, { stream: true })),
    end() {
      feed(decoder.decode());
      buffer = '';
      event = '';
      data = [];
    },
  };
}
