import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';
import { RunCanceller } from '../runs/run-canceller.service';
import { RunStarter } from '../runs/run-starter.service';
import { WorkflowCatalogRepository } from '../workflows/workflow-catalog.repository';
import { RequestAnswers } from '../requests/request-answers.service';
import { WorkflowAgents } from './a2a/workflow-agents';
import { AgUiRuns } from './ag-ui/ag-ui-runs';
import { UiChats } from './ui-chat/ui-chats';
import { ThreadRepository } from '@spindle/control-plane';
import { ThreadRuns } from '../threads/thread-runs.service';
import { McpSessionRelay } from './mcp/mcp-session-relay';
import { WorkflowTasks } from './mcp/workflow-tasks';
import { WorkflowTools } from './mcp/workflow-tools';

/** The standard protocols the gateway speaks besides its own API: MCP, A2A, AG-UI and the AI SDK's chat stream. */
export function protocolProviders(): Provider[] {
  return [
    {
      provide: WorkflowTasks,
      inject: [RunCanceller, BUS, LOGGER],
      useFactory: (canceller: RunCanceller, bus: Bus, logger: Logger) => new WorkflowTasks(canceller, bus, logger),
    },
    {
      provide: McpSessionRelay,
      inject: [BUS, LOGGER],
      useFactory: (bus: Bus, logger: Logger) => new McpSessionRelay(bus, logger),
    },
    {
      provide: WorkflowTools,
      inject: [WorkflowCatalogRepository, RunStarter, RunCanceller, WorkflowTasks, McpSessionRelay, RequestAnswers, BUS, LOGGER],
      useFactory: (
        catalog: WorkflowCatalogRepository,
        starter: RunStarter,
        canceller: RunCanceller,
        tasks: WorkflowTasks,
        relay: McpSessionRelay,
        answers: RequestAnswers,
        bus: Bus,
        logger: Logger,
      ) => new WorkflowTools(catalog, starter, canceller, tasks, relay, answers, bus, logger),
    },
    {
      provide: WorkflowAgents,
      inject: [RunStarter, RunCanceller, RequestAnswers, BUS, LOGGER],
      useFactory: (starter: RunStarter, canceller: RunCanceller, answers: RequestAnswers, bus: Bus, logger: Logger) =>
        new WorkflowAgents(starter, canceller, answers, bus, logger),
    },
    {
      provide: AgUiRuns,
      inject: [ThreadRepository, ThreadRuns, RunCanceller, RequestAnswers, BUS, LOGGER],
      useFactory: (
        threads: ThreadRepository,
        threadRuns: ThreadRuns,
        canceller: RunCanceller,
        answers: RequestAnswers,
        bus: Bus,
        logger: Logger,
      ) => new AgUiRuns(threads, threadRuns, canceller, answers, bus, logger),
    },
    {
      provide: UiChats,
      inject: [ThreadRepository, ThreadRuns, BUS, LOGGER],
      useFactory: (threads: ThreadRepository, threadRuns: ThreadRuns, bus: Bus, logger: Logger) =>
        new UiChats(threads, threadRuns, bus, logger),
    },
  ];
}
