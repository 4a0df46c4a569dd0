import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { METRICS } from '@spindle/service-kit';
import { Gauge, type Registry } from 'prom-client';

/**
 * SSE responses this gateway is writing. On shutdown they are ended, so the process can exit
 * and clients reconnect (with Last-Event-ID) to another gateway without losing an event.
 */
@Injectable()
export class OpenStreamsRegistry implements BeforeApplicationShutdown {
  private readonly open = new Set<{ close(): void }>();

  constructor(@Inject(METRICS) registry: Registry) {
    const open = this.open;
    new Gauge({
      name: 'spindle_sse_clients',
      help: 'Server-sent event streams this gateway is writing now.',
      registers: [registry],
      collect() {
        this.set(open.size);
      },
    });
  }

  track(stream: { close(): void }): () => void {
    this.open.add(stream);
    return () => this.open.delete(stream);
  }

  beforeApplicationShutdown() {
    for (const stream of this.open) stream.close();
    this.open.clear();
  }
}
