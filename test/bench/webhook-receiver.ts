/**
 * Child process: a healthy webhook receiver. Every POST is read to the end and
 * answered 200; `GET /count` answers how many POSTs arrived. Prints
 * `{"port": n}` once listening.
 */
import { createServer } from 'node:http';

let received = 0;

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/count') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ count: received }));
    return;
  }
  request.resume();
  request.on('end', () => {
    if (request.method === 'POST') received += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
