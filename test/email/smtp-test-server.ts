import { AddressInfo } from 'node:net';
import { ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message the server was handed (DATA), with the reply it gave. */
export interface ReceivedMessage {
  readonly recipients: string[];
  readonly reply: number;
  readonly mail: ParsedMail;
}

/**
 * A real SMTP server for the tests (smtp-server, no TLS, no authentication) whose reply to DATA is decided per
 * message by `replyFor` (250, or a 4xx/5xx code), keeping every message it was handed, parsed with mailparser.
 */
export class SmtpTestServer {
  readonly received: ReceivedMessage[] = [];
  private readonly server: SMTPServer;

  constructor(private readonly replyFor: (recipients: string[], received: readonly ReceivedMessage[]) => number) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const recipients = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        simpleParser(stream)
          .then((mail) => {
            const reply = this.replyFor(recipients, this.received);
            this.received.push({ recipients, reply, mail });
            if (reply === 250) return callback();
            callback(Object.assign(new Error(reply >= 500 ? 'mailbox unavailable' : 'try again later'), { responseCode: reply }));
          })
          .catch((error: Error) => callback(error));
      },
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  to(address: string): ReceivedMessage[] {
    return this.received.filter((message) => message.recipients.includes(address));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
