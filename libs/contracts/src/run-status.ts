import { z } from 'zod';

export const runStatusSchema = z.enum(['queued', 'running', 'awaiting_input', 'awaiting_approval', 'completed', 'failed', 'canceled']);
export type RunStatus = z.infer<typeof runStatusSchema>;
export const terminalStatuses: readonly RunStatus[] = ['completed', 'failed', 'canceled'];
