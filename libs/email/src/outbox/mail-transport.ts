import { Logger } from '@nestjs/common';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer, { Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { EmailSettings as EmailConfig } from '@billing/platform';
import { isPermanentSmtpFailure } from '../domain';

/** What one try to hand a mail over came to. */
export type SendResult =
  | { readonly ok: true; readonly reply: string }
  /** `permanent`: a 5xx reply, never retried; otherwise a 4xx reply or no reply at all (connection, timeout). */
  | { readonly ok: false; readonly permanent: boolean; readonly reply: string };

export interface MailTransport {
  send(message: Mail.Options & { readonly deliveryId: string }): Promise<SendResult>;
  close(): void;
}

/** SMTP_URL: nodemailer over SMTP (STARTTLS when the server offers it on smtp://, implicit TLS on smtps://). */
class SmtpTransport implements MailTransport {
  private readonly transporter: Transporter;

  constructor(url: string) {
    this.transporter = nodemailer.createTransport(url);
  }

  async send(message: Mail.Options): Promise<SendResult> {
    try {
      const info = await this.transporter.sendMail(message);
      return { ok: true, reply: info.response ?? '' };
    } catch (error) {
      const { responseCode, response, message: text } = error as { responseCode?: number; response?: string; message?: string };
      return { ok: false, permanent: isPermanentSmtpFailure(responseCode), reply: response ?? text ?? String(error) };
    }
  }

  close(): void {
    this.transporter.close();
  }
}

/** Development without SMTP_URL: each mail written as `<mailDir>/<delivery id>.eml` (the whole message, as it would be sent). */
class FileTransport implements MailTransport {
  private readonly transporter: Transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  private readonly logger = new Logger('EmailFiles');

  constructor(private readonly mailDir: string) {}

  async send(message: Mail.Options & { readonly deliveryId: string }): Promise<SendResult> {
    const info = (await this.transporter.sendMail(message)) as unknown as { message: Buffer };
    await mkdir(this.mailDir, { recursive: true });
    const path = resolve(join(this.mailDir, `${message.deliveryId}.eml`));
    await writeFile(path, info.message);
    this.logger.log({ msg: 'e-mail written (no SMTP_URL)', path });
    return { ok: true, reply: `written to ${path}` };
  }

  close(): void {
    this.transporter.close();
  }
}

/** The transport the configuration names; null in production without SMTP_URL (nothing is sent). */
export function mailTransportFor(config: EmailConfig): MailTransport | null {
  switch (config.transport) {
    case 'smtp':
      return new SmtpTransport(config.smtpUrl!);
    case 'file':
      return new FileTransport(config.mailDir);
    case 'none':
      return null;
  }
}
