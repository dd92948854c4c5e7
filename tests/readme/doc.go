// Package readme runs the Go code blocks of the repository's README.md and
// of every page in docs/ as written (tests/node/readme.test.mjs runs the
// JavaScript ones): each block becomes a function of one program, compiled
// against this module and run in a directory holding the data it names.
// JSON blocks must parse; other blocks that are not programs (shell
// commands, layouts) are listed in notRun with the reason.
package readme
