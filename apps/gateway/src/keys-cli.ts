import { TenantsRepository } from '@spindle/control-plane';
import { parseArgs } from 'node:util';
import { DEFAULT_TENANT, SCOPES, scopeSchema, tenantIdSchema, type Actor } from '@spindle/contracts';
import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { generateApiKey } from '@spindle/identity';
import { parseServiceConfig } from '@spindle/service-kit';
import { connectServiceDatabase } from '@spindle/service-db';
import { z } from 'zod';
import { ApiKeysRepository } from './identity/api-keys.repository';
import { AuditLogRepository } from './identity/audit-log.repository';

const USAGE = `usage:
  npm run keys -- create --name <name> [--tenant <id>] [--scopes runs:read,runs:write,…|all] [--expires <ISO time>]
  npm run keys -- list [--tenant <id>]
  npm run keys -- revoke <key id> [--tenant <id>]
  npm run keys -- tenant <id> <name>          (makes a tenant)`;

/** Who the audit trail says made a change with this tool. */
const OPERATOR: Actor = { kind: 'system', id: 'keys-cli', name: `npm run keys (${process.env.USER ?? 'operator'})` };

/**
 * `npm run keys`: the operator's way in when no admin key is at hand (a production install, a lost
 * key). Same environment as the gateway; talks to its database directly; a key is printed once.
 */
async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { name: { type: 'string' }, tenant: { type: 'string' }, scopes: { type: 'string' }, expires: { type: 'string' } },
  });
  const [command, ...rest] = positionals;
  const config = parseServiceConfig(process.env, 'gateway', 'PORT', 8080);
  const tenant = flag(tenantIdSchema, values.tenant ?? DEFAULT_TENANT, '--tenant');
  const { db } = await connectServiceDatabase<GatewayTables>(config, 'gateway', gatewayMigrations);
  const keys = new ApiKeysRepository(db);
  const audit = new AuditLogRepository(db);
  try {
    if (command === 'create') {
      const name = flag(z.string().trim().min(1).max(100), values.name, '--name');
      const scopes =
        !values.scopes || values.scopes === 'all' ? [...SCOPES] : flag(z.array(scopeSchema), values.scopes.split(','), '--scopes');
      const made = generateApiKey();
      await keys.insert({
        id: made.id,
        tenant,
        name,
        scopes,
        secretHash: made.secretHash,
        createdBy: OPERATOR,
        expiresAt: values.expires ? new Date(flag(z.iso.datetime({ offset: true }), values.expires, '--expires')) : null,
      });
      await audit.append({
        tenant,
        actor: OPERATOR,
        action: 'key.created',
        target: { kind: 'key', id: made.id },
        source: null,
        detail: { name, scopes },
      });
      process.stdout.write(`${made.token}\n`);
    } else if (command === 'list') {
      for (const k of await keys.list(tenant)) {
        process.stdout.write(`${k.id}  ${k.name}  ${k.scopes.join(',')}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}\n`);
      }
    } else if (command === 'revoke' && rest[0]) {
      const revoked = await keys.revoke(tenant, rest[0], OPERATOR);
      if (!revoked) throw new Error(`no key ${rest[0]} in tenant ${tenant}`);
      await audit.append({ tenant, actor: OPERATOR, action: 'key.revoked', target: { kind: 'key', id: rest[0] }, source: null });
      process.stdout.write(`revoked ${rest[0]}\n`);
    } else if (command === 'tenant' && rest[0] && rest[1]) {
      const id = flag(tenantIdSchema, rest[0], 'tenant id');
      if (!(await new TenantsRepository(db).create(id, rest[1]))) throw new Error(`tenant ${id} exists already`);
      await audit.append({ tenant: id, actor: OPERATOR, action: 'tenant.created', target: { kind: 'tenant', id }, source: null });
      process.stdout.write(`made tenant ${id}\n`);
    } else {
      process.stderr.write(`${USAGE}\n`);
      process.exitCode = 2;
    }
  } finally {
    await db.destroy();
  }
}

function flag<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${name}: ${value === undefined ? 'missing' : parsed.error.issues[0]?.message}`);
  return parsed.data;
}

main().catch((e: unknown) => {
  process.stderr.write(`keys: ${(e as Error).message}\n${USAGE}\n`);
  process.exit(2);
});
