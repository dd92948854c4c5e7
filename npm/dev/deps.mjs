// Development-only: re-exports the devDependencies the repository's tests
// use (tests/node, tests/browser, tests/bench), so that files outside npm/
// resolve them from npm/node_modules. Not published (see "files").
export * as zarrita from "zarrita";
export { FileSystemStore as ZarritaFileSystemStore, FetchStore as ZarritaFetchStore, ZipFileStore as ZarritaZipFileStore } from "@zarrita/storage";
