import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';

/**
 * SSE responses this gateway is writing. On shutdown they are ended, so the process can exit
 * and clients reconnect (with Last-Event-ID) to another gateway without losing an event.
 */
@Injectable()
export class OpenStreamsRegistry implements BeforeApplicationShutdown {
  private readonly open = new Set<{ close(): void }>();

  track(stream: { close(): void }): () => void {
    this.open.add(stream);
    return () => this.open.delete(stream);
  }

  beforeApplicationShutdown() {
    for (const stream of this.open) stream.close();
    this.open.clear();
  }
}
