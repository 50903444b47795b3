/** The Pod Security Standards levels, loosest first (its own module: configuration reads it without loading the controls). */
export const POD_SECURITY_LEVELS = ['privileged', 'baseline', 'restricted'] as const;
export type PodSecurityLevel = (typeof POD_SECURITY_LEVELS)[number];
