import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';
import { LiveRuns } from '../runs/live-runs';
import { RunFeedHub } from '../runs/run-feed.hub';
import { RequestAnswers } from '../requests/request-answers.service';
import { WorkflowAgents } from './a2a/workflow-agents';
import { AgUiRuns } from './ag-ui/ag-ui-runs';
import { UiChats } from './ui-chat/ui-chats';
import { ThreadRepository, RunStarter, WorkflowCatalogRepository, RunCanceller } from '@spindle/control-plane';
import { ThreadRuns } from '../threads/thread-runs.service';
import { McpSessionRelay } from './mcp/mcp-session-relay';
import { WorkflowTasks } from './mcp/workflow-tasks';
import { WorkflowTools } from './mcp/workflow-tools';

/** The standard protocols the gateway speaks besides its own API: MCP, A2A, AG-UI and the AI SDK's chat stream. */
export function protocolProviders(): Provider[] {
  return [
    { provide: LiveRuns, inject: [BUS, RunFeedHub], useFactory: (bus: Bus, hub: RunFeedHub) => new LiveRuns(bus, hub) },
    {
      provide: WorkflowTasks,
      inject: [RunCanceller, BUS, LiveRuns],
      useFactory: (canceller: RunCanceller, bus: Bus, live: LiveRuns) => new WorkflowTasks(canceller, bus, live),
    },
    {
      provide: McpSessionRelay,
      inject: [BUS, LOGGER],
      useFactory: (bus: Bus, logger: Logger) => new McpSessionRelay(bus, logger),
    },
    {
      provide: WorkflowTools,
      inject: [WorkflowCatalogRepository, RunStarter, RunCanceller, WorkflowTasks, McpSessionRelay, RequestAnswers, LiveRuns, LOGGER],
      useFactory: (
        catalog: WorkflowCatalogRepository,
        starter: RunStarter,
        canceller: RunCanceller,
        tasks: WorkflowTasks,
        relay: McpSessionRelay,
        answers: RequestAnswers,
        live: LiveRuns,
        logger: Logger,
      ) => new WorkflowTools(catalog, starter, canceller, tasks, relay, answers, live, logger),
    },
    {
      provide: WorkflowAgents,
      inject: [RunStarter, RunCanceller, RequestAnswers, BUS, LiveRuns],
      useFactory: (starter: RunStarter, canceller: RunCanceller, answers: RequestAnswers, bus: Bus, live: LiveRuns) =>
        new WorkflowAgents(starter, canceller, answers, bus, live),
    },
    {
      provide: AgUiRuns,
      inject: [ThreadRepository, ThreadRuns, RunCanceller, RequestAnswers, BUS, LiveRuns],
      useFactory: (
        threads: ThreadRepository,
        threadRuns: ThreadRuns,
        canceller: RunCanceller,
        answers: RequestAnswers,
        bus: Bus,
        live: LiveRuns,
      ) => new AgUiRuns(threads, threadRuns, canceller, answers, bus, live),
    },
    {
      provide: UiChats,
      inject: [ThreadRepository, ThreadRuns, BUS, LiveRuns],
      useFactory: (threads: ThreadRepository, threadRuns: ThreadRuns, bus: Bus, live: LiveRuns) =>
        new UiChats(threads, threadRuns, bus, live),
    },
  ];
}
