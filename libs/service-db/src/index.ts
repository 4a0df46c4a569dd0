export { DATABASE } from './tokens';
export { DatabaseModule } from './database.module';
export type { DatabaseOptions } from './database.module';
export { connectServiceDatabase } from './connect-database';
export { repositoryProvider } from './repository-provider';
