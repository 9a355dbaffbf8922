// Bench peer: Fastify serving the same task JSON from a Map, the way a
// careful Fastify app would do it fast: JSON kept serialised, sent as is,
// no logging. Prints {"port":N} once listening on 127.0.0.1.
// Usage: node --import tsx bench/http-peers/fastify-map.ts TASKS
import Fastify from 'fastify';

const count = Number(process.argv[2] ?? 1000);
const tasks = new Map<number, string>();
for (let id = 1; id <= count; id++) tasks.set(id, JSON.stringify({ id, title: `task ${id}`, completed: false }));

const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/api/v1/tasks/:id', (req, reply) => {
  const json = tasks.get(Number(req.params.id));
  if (json === undefined) return reply.code(404).type('application/problem+json').send('{"title":"Not Found","status":404}');
  return reply.type('application/json').send(json);
});
app.get('/api/v1/tasks', (_req, reply) => {
  const page: string[] = [];
  for (const json of tasks.values()) {
    if (page.length === 100) break;
    page.push(json);
  }
  return reply.type('application/json').send(`[${page.join(',')}]`);
});

const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ port: Number(new URL(address).port) }));
process.once('SIGTERM', () => void app.close());
