// Package readme runs the Go code blocks of the repository's README.md as
// written (tests/node/readme.test.mjs runs the JavaScript ones): each block
// becomes a main function, compiled against this module and run in a
// directory holding the data it names.
package readme
