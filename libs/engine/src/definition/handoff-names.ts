/**
 * Handoff tools are built into the engine, not registered with the runner: an agent whose `tools`
 * name `handoff_to_<agent>` is offered a tool the engine describes itself, and calling it never
 * reaches the ToolPort. The prefix is reserved for that. Patterns name these tools; the agent
 * executor recognises them.
 */
const PREFIX = 'handoff_to_';

export const handoffToolName = (agent: string) => `${PREFIX}${agent}`;

export const isHandoffTool = (name: string) => name.startsWith(PREFIX) && name.length > PREFIX.length;

/** The agent a handoff tool hands over to. */
export const handoffTarget = (name: string) => name.slice(PREFIX.length);
