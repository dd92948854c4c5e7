// Types only in zarrita.
export {};
