import type { GatewayTables } from '@spindle/db';
import { composeProjections, type Projection } from '@spindle/projection-kit';
import { EvaluationProjection } from '../evaluations/evaluation.projection';
import { FileReferenceProjection } from '../files/file-reference.projection';
import { ThreadProjection } from '../threads/thread.projection';
import { WebhookProjection } from '../webhooks/webhook.projection';
import { AdmissionProjection } from './admission.projection';
import type { AdmissionRepository } from './admission.repository';

/**
 * The control plane's one projection of the log: the admission, threads' runs, webhook
 * deliveries, the runs' file references and the evaluations due, folded in one transaction per batch by one durable consumer.
 */
export function controlPlaneProjection(durable: string, admissions: AdmissionRepository): Projection<GatewayTables> {
  return composeProjections(
    new AdmissionProjection(durable, admissions),
    new ThreadProjection(),
    new WebhookProjection(),
    new FileReferenceProjection(),
    new EvaluationProjection(),
  );
}
