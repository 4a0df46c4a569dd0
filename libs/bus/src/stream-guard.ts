import { Counter, type Registry } from 'prom-client';
import { onReconnect, type Bus } from './bus-connection';
import { isNotFound, provisionStreams, type StreamProvisioning } from './provision-streams';
import { forgetPayloadStore, payloadBucket } from './run-payloads';

export interface StreamGuardOptions {
  /** Told of each stream found missing and made again: its messages are gone. */
  onRecreated?: (streams: string[]) => void;
  metrics?: Registry;
}

/**
 * Watches that the streams every service relies on exist, and makes again the ones that do not
 * (with the configured limits and replicas) — after a nats-server lost its store, say, where a
 * client reconnects as if nothing happened and every read answers "stream not found". What was
 * in a lost stream is gone: the guard counts it (`spindle_jetstream_streams_recreated_total`)
 * and tells `onRecreated`, and `eventsStreamCreated` says since when the log holds runs, so a
 * reader can tell a run whose log was lost from one that never was.
 */
export class StreamGuard {
  private readonly recreated?: Counter<'stream'>;
  private eventsCreatedAt?: number;
  private checking?: Promise<string[]>;

  constructor(
    private readonly bus: Bus,
    private readonly provisioning: StreamProvisioning,
    private readonly opts: StreamGuardOptions = {},
  ) {
    if (opts.metrics) {
      this.recreated = new Counter({
        name: 'spindle_jetstream_streams_recreated_total',
        help: 'Streams found missing (a lost JetStream store) and made again; their messages are gone',
        labelNames: ['stream'],
        registers: [opts.metrics],
      });
    }
  }

  /** The streams checked: the run log, the command queue, dead letters, the payload bucket's. */
  streams(): string[] {
    const { names } = this.bus;
    return [names.eventsStream, names.commandsStream, names.deadLetterStream, `OBJ_${payloadBucket(this.bus)}`];
  }

  /**
   * Looks every stream up and makes again those missing; answers their names. Throws when
   * JetStream does not answer or a stream cannot be made (then the service is not ready).
   * Concurrent calls share one check.
   */
  check(): Promise<string[]> {
    this.checking ??= this.checkOnce().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** When the events stream was made (ms since the epoch): the log holds no run from before it. */
  async eventsStreamCreated(): Promise<number> {
    if (this.eventsCreatedAt === undefined) {
      const info = await this.bus.jsm.streams.info(this.bus.names.eventsStream);
      this.eventsCreatedAt = Date.parse(info.created);
    }
    return this.eventsCreatedAt;
  }

  /** Checks every `everyMs` and at each reconnect, until the returned function is called. */
  watch(everyMs: number, onError: (e: unknown) => void): () => void {
    const run = () => void this.check().catch(onError);
    const timer = setInterval(run, everyMs);
    timer.unref();
    const stopReconnects = onReconnect(this.bus, run);
    return () => {
      clearInterval(timer);
      stopReconnects();
    };
  }

  private async checkOnce(): Promise<string[]> {
    const missing: string[] = [];
    for (const name of this.streams()) {
      try {
        const info = await this.bus.jsm.streams.info(name);
        // Another service may have made it again: every check refreshes when the log began.
        if (name === this.bus.names.eventsStream) this.eventsCreatedAt = Date.parse(info.created);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        missing.push(name);
      }
    }
    if (missing.length === 0) return missing;
    forgetPayloadStore(this.bus);
    await provisionStreams(this.bus, this.provisioning);
    this.eventsCreatedAt = undefined;
    for (const stream of missing) this.recreated?.inc({ stream });
    this.opts.onRecreated?.(missing);
    return missing;
  }
}
