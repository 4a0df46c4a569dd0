import { isBusClosed, query, type Bus } from '@spindle/bus';
import { DEFAULT_TENANT, isSpindleError, SpindleError, type RetrieveAnswer } from '@spindle/contracts';
import type { RetrievalAnswer, RetrievalRequest, RetrieverPort } from '@spindle/engine';

const RETRIEVE_TIMEOUT_MS = 30_000;

/**
 * The runner's retriever: the dispatcher's knowledge bases, searched within the run's tenant.
 * The dispatcher's own refusals keep their codes (`knowledge_base_not_found`, ...); a dispatcher
 * that does not answer is `retrieval_failed` (retryable), and a closed connection to NATS stays
 * an infrastructure fault (`bus_unavailable`), never the run's failure.
 */
export function knowledgeRetriever(bus: Bus, tenant: string | undefined): RetrieverPort {
  return {
    async retrieve(request: RetrievalRequest): Promise<RetrievalAnswer> {
      const { signal: _signal, ...search } = request;
      try {
        return await query<RetrieveAnswer>(
          bus,
          'dispatcher',
          'retrieve',
          { tenant: tenant ?? DEFAULT_TENANT, ...search },
          RETRIEVE_TIMEOUT_MS,
        );
      } catch (e) {
        if (isBusClosed(bus))
          throw new SpindleError('bus_unavailable', 'NATS is closed: the knowledge base could not be asked', { cause: e });
        if (isSpindleError(e) && e.code === 'service_unavailable') throw new SpindleError('retrieval_failed', e.message, { cause: e });
        throw e;
      }
    },
  };
}
