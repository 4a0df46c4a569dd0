import type { Provider } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { DATABASE } from './tokens';

/** A repository built from the service's database alone, provided under its own class. */
export function repositoryProvider<DB>(type: new (db: Kysely<DB>) => unknown): Provider {
  return { provide: type, inject: [DATABASE], useFactory: (db: Kysely<DB>) => new type(db) };
}
