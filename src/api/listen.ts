/** Listening on a port, with a one-line answer when it is taken. */
import type { Server } from 'node:http';

/** The port is taken: the message names the variable that sets it. */
export class PortInUseError extends Error {}

export async function listen(server: Server, port: number, host: string, variable: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new PortInUseError(`port ${port} on ${host} is already in use: set ${variable} to another port (or 0 for any free port)`));
      else if (err.code === 'EACCES') reject(new PortInUseError(`port ${port} on ${host} needs privileges this user lacks: set ${variable} to a port above 1023`));
      else reject(err);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
