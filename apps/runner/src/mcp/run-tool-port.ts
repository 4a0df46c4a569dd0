import type { ToolContext, ToolPort, ToolSpec } from '@spindle/engine';
import type { McpServerConfig } from './mcp-server-config';
import type { McpToolSource } from './mcp-tool-source';

/**
 * The ToolPort of one run: the runner's plugin tools plus the MCP servers the run's agents name.
 * Created when the run starts and closed when it ends, so MCP connections (and stdio server
 * processes) never outlive their run.
 */
export class RunToolPort implements ToolPort {
  constructor(
    private readonly plugins: ToolPort,
    private readonly mcp: McpToolSource,
  ) {}

  specs(names: readonly string[]): ToolSpec[] {
    return this.plugins.specs(names);
  }

  discover(servers: readonly McpServerConfig[], ctx: { runId: string; nodeId: string; signal: AbortSignal }): Promise<ToolSpec[]> {
    return this.mcp.discover(servers, ctx);
  }

  call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    // A name the node discovered wins; anything else (including unknown names) is the plugins' to answer.
    return this.mcp.handles(name, ctx.nodeId) ? this.mcp.call(name, args, ctx) : this.plugins.call(name, args, ctx);
  }

  close(): Promise<void> {
    return this.mcp.close();
  }
}
