import { Controller, Get } from '@nestjs/common';
import type { FunctionList, ToolList } from '@spindle/contracts';
import { listFunctions, listTools } from '@spindle/control-plane';
import { RunnerCapabilitiesService } from './runner-capabilities.service';

/**
 * What the live runners can run, merged across runners. Runners serve every tenant, so every
 * tenant sees the same list.
 */
@Controller('v1')
export class CapabilitiesController {
  constructor(private readonly capabilities: RunnerCapabilitiesService) {}

  @Get('functions')
  async functions(): Promise<FunctionList> {
    return { functions: listFunctions(await this.capabilities.live()) };
  }

  @Get('tools')
  async tools(): Promise<ToolList> {
    return { tools: listTools(await this.capabilities.live()) };
  }
}
