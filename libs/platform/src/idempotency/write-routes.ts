import { RequestMethod, Type } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, MODULE_METADATA } from '@nestjs/common/constants';

/** The controllers a module declares. */
export function controllersOf(module: Type): Type[] {
  return (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) as Type[] | undefined) ?? [];
}

/**
 * Puts `interceptor` on every POST and PUT route of these controllers, as
 * `@UseInterceptors` would (run before Nest scans the modules, so it is
 * resolved like any route interceptor). Writes get it; reads never pay for
 * Nest's interceptor pipeline. Applying it twice (several apps in one
 * process) changes nothing.
 */
export function interceptWriteRoutes(controllers: readonly Type[], interceptor: Type): void {
  for (const controller of controllers) {
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler: unknown = controller.prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method !== RequestMethod.POST && method !== RequestMethod.PUT) continue;
      const existing = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
      if (!existing.includes(interceptor)) Reflect.defineMetadata(INTERCEPTORS_METADATA, [interceptor, ...existing], handler);
    }
  }
}
