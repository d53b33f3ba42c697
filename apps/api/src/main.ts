import { x } from '@billing/shared-kernel';
console.log(x);
