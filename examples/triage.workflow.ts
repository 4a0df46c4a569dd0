import { workflow } from '@spindle/sdk';
import { z } from 'zod';

/**
 * A workflow built in code with @spindle/sdk: `spindle deploy examples/triage.workflow.ts` saves it as
 * "triage". TypeScript checks it as it is written: an edge to a node that is not here, or a condition
 * edge without its `true`/`false` handle, does not compile (`npm run typecheck`).
 */
const classifier = {
  type: 'agent',
  model: 'offline:script',
  instructions: 'Name the team that should answer: billing or support.',
  prompt: '{{input.message}}',
  script: [{ when: 'refund', answer: 'billing' }, { answer: 'support' }],
  output_key: 'team',
} as const;

export default workflow('triage', {
  description: 'Triage built in code: a message long enough goes to a scripted agent that names the team; a short one is sent back.',
  parameters: z.object({ minWords: z.number().int().min(1).default(3) }),
})
  .node('count', { type: 'function', function: 'word_count', args: { text: '{{input.message}}' } })
  .node('long_enough', { type: 'condition', expression: 'word_count >= parameters.minWords' })
  .node('classify', classifier)
  .node('ask_more', { type: 'set', values: { team: 'none', reply: 'Tell us a little more, please.' } })
  .node('tally', { type: 'function', function: 'increment', args: { key: 'triaged' } })
  .edge('count', 'long_enough')
  .edge('long_enough', 'classify', { handle: 'true' })
  .edge('long_enough', 'ask_more', { handle: 'false' })
  .edge('classify', 'tally');
