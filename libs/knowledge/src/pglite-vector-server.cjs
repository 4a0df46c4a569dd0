// PGlite with pgvector, served over the Postgres wire protocol on a free loopback port, in its own
// process: PGlite loads its WASM by dynamic import, which Jest's module sandbox cannot do. Prints
// "host:port" once listening; ends when its parent closes stdin.
const { PGlite } = require('@electric-sql/pglite');
const { vector } = require('@electric-sql/pglite-pgvector');
const { PGLiteSocketServer } = require('@electric-sql/pglite-socket');

(async () => {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1' });
  await server.start();
  process.stdout.write(`${server.getServerConn()}\n`);
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await server.stop();
    await db.close();
    process.exit(0);
  });
})().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
