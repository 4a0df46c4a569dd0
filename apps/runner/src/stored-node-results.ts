import { query, type Bus } from '@spindle/bus';
import type { CheckpointQueryResults } from '@spindle/contracts';
import type { NodeResultStore, StoredNodeResult } from '@spindle/engine';
import type { Logger } from 'pino';

/**
 * `checkpoint: true` nodes' results, asked of the checkpoint service. It is an optimisation, so
 * a slow or absent service is a miss (the node runs) after a short wait, never a failed run.
 */
export class StoredNodeResults implements NodeResultStore {
  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly timeoutMs = 1_500,
  ) {}

  async find(keys: readonly string[]): Promise<StoredNodeResult | undefined> {
    try {
      const { result } = await query<CheckpointQueryResults['getNodeResult']>(
        this.bus,
        'checkpoint',
        'getNodeResult',
        { keys },
        this.timeoutMs,
      );
      return result ? { key: result.key, output: result.output, handle: result.handle } : undefined;
    } catch (err) {
      this.logger.warn({ err }, 'stored node results unavailable; running the node');
      return undefined;
    }
  }
}
