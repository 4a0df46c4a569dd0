-- Runs once, when the compose Postgres volume is first initialised.
-- `npm test` defaults to DATABASE_URL=postgres://postgres@127.0.0.1:5432/test; the
-- containerised services use the `spindle` database (POSTGRES_DB), `npm start` uses `postgres`.
CREATE DATABASE test;
