// tintype's expectType checks types at compile time (with its vite plugin);
// at run time it does nothing, here as in zarrita's suite.
export function expectType() {}
