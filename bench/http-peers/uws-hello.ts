// Bench peer: a bare uWebSockets.js hello world, the ceiling for any
// handler on this server. Prints {"port":N} once listening on 127.0.0.1.
import { uws } from '../../src/http/uws.js';

const binding = uws();
const app = binding.App();
app.get('/*', (res) => {
  res.end('Hello World!');
});
app.listen('127.0.0.1', 0, (socket) => {
  if (socket === false) throw new Error('uws-hello: cannot listen');
  console.log(JSON.stringify({ port: binding.us_socket_local_port(socket as never) }));
});
process.once('SIGTERM', () => app.close());
