// Object stores (S3, S3-compatible servers, GCS's XML API) as FetchStore
// meets them: s3:// and gs:// locations, signed requests, what an error
// answer means (403 for a missing key), ListObjectsV2 listings and
// conditional writes. The rules and the formats are the engine's (Go's
// zarr/urlx and zarr/s3, through synchronous bridge calls), so Go's HTTP
// store and this one behave alike; the requests are made here, with fetch.
import { bridge, bridgeIfRunning, startBuild } from "./runtime.js";
import { ZarrError, toZarrError } from "./errors.js";

/** Locations the engine maps (s3://, gs://, and others it names the error of): not http(s) URLs, nor relative ones. */
export const mappedLocation = /^(?!https?:)[a-z][a-z0-9+.-]*:\/\//i;

/** The most of an error answer's body that is read (an S3 error document is small). */
export const maxErrorBody = 64 << 10;
/** The most one listing page may hold. */
const maxListPage = 16 << 20;

/** Keys of metadata documents (v3, v2, v1): a 403 for one of them means "absent". */
const metadataDoc = /(^|\/)(zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata|meta|attrs)$/;

/** How many directories with metadata read a store remembers (past it, the safe side: 403 is an error). */
const maxReadDirs = 1 << 16;

/** Throws the bridge's error answer as a ZarrError, or returns the value. */
function checked(v) {
  if (v && typeof v === "object" && v.__zarrWasmError) throw toZarrError(v);
  return v;
}

async function engine() {
  return bridgeIfRunning() ?? (await bridge());
}

/**
 * A FetchStore's object-store side: the location (mapped by the engine when
 * it is s3:// or gs://), credentials, the directories whose metadata was
 * read (a 403 below them means a missing chunk) and whether the server
 * honours conditional writes.
 * @internal
 */
export class ObjectAccess {
  constructor(location, options) {
    this.location = location;
    this.region = options.region === undefined ? undefined : String(options.region);
    this.endpoint = options.endpoint === undefined ? undefined : String(options.endpoint);
    const c = options.credentials;
    if (c !== undefined && c !== null && typeof c !== "function" && (typeof c !== "object" || !c.accessKeyId || !c.secretAccessKey)) {
      throw new ZarrError("ACCESS_DENIED", "credentials are {accessKeyId, secretAccessKey, sessionToken?} or a function returning them");
    }
    this.credentialsOption = c ?? null;
    this.missing = options.missingStatus === undefined ? null : [...options.missingStatus].map(Number);
    if (this.missing && !this.missing.every((s) => Number.isInteger(s) && s >= 400 && s < 600)) {
      throw new ZarrError("STORE", `missingStatus: HTTP statuses 400-599, got ${JSON.stringify(options.missingStatus)}`);
    }
    const signing = options.signing ?? (globalThis.location === undefined ? "headers" : "query");
    if (signing !== "headers" && signing !== "query") throw new ZarrError("STORE", `signing is "headers" or "query", got ${JSON.stringify(signing)}`);
    this.querySigning = signing === "query";
    const cw = options.conditionalWrites ?? "probe";
    if (cw !== "probe" && cw !== true && cw !== false) throw new ZarrError("STORE", `conditionalWrites is "probe", true or false, got ${JSON.stringify(cw)}`);
    /** Whether the server honours conditional writes: true, false, or undefined (not yet probed). */
    this.conditional = cw === "probe" ? undefined : cw;
    this.probing = null;
    this.mapped = null; // {url, bucket, key, bucketUrl, service, region}, once asked
    this.creds = null; // the current credentials
    this.credsAt = 0;
    this.refreshing = null;
    this.readDirs = new Set();
    /** Whether a request needs the engine (or credentials) first: ready() then runs. */
    this.pending = mappedLocation.test(location) || this.credentialsOption !== null;
  }

  /** Maps the location (once) and fetches credentials (when due). */
  async ready() {
    if (this.mapped === null) {
      const b = await engine();
      this.mapped = checked(b.s3Location(this.location, { region: this.region, endpoint: this.endpoint }));
    }
    if (this.credentialsOption !== null) {
      await startBuild("full"); // (signing is the full build's: jsbridge/objstore_full.go)
      await this.credentials(false);
    }
    this.pending = this.credentialsOption !== null && this.expiresSoon();
  }

  /** Maps the location now if the engine runs (for a synchronous caller); null when it cannot. */
  mapNow() {
    if (this.mapped === null) {
      const b = bridgeIfRunning();
      if (!b) return null;
      this.mapped = checked(b.s3Location(this.location, { region: this.region, endpoint: this.endpoint }));
    }
    return this.mapped;
  }

  expiresSoon() {
    const exp = this.creds?.expiration ?? this.creds?.expires;
    return !this.creds || (exp !== undefined && new Date(exp).getTime() - Date.now() < 60_000);
  }

  /** The credentials: the option's, or its function's answer (asked again near expiry, or when refresh). */
  async credentials(refresh) {
    const c = this.credentialsOption;
    if (typeof c !== "function") {
      this.creds = c;
      return c;
    }
    if (!refresh && !this.expiresSoon()) return this.creds;
    this.refreshing ??= (async () => {
      try {
        const got = await c();
        if (!got || typeof got !== "object" || !got.accessKeyId || !got.secretAccessKey) {
          throw new ZarrError("ACCESS_DENIED", "the credentials function returned no {accessKeyId, secretAccessKey}");
        }
        this.creds = got;
        return got;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** The store's key prefix in its bucket ("" or ending in "/"). */
  keyPrefix() {
    const k = this.mapped?.key ?? "";
    return k === "" ? "" : `${k.replace(/\/+$/, "")}/`;
  }

  /**
   * The signer of one request, or null (no credentials): sign(method, url,
   * headers: [[name, value]], body?) → {url, headers to add}; a presigned
   * URL is left as it is. presign: {query: true, expires} signs in the
   * query whatever the method.
   */
  signer(presign = undefined) {
    const creds = this.creds;
    if (!creds) return null;
    const b = bridgeIfRunning();
    const region = this.region ?? (this.mapped?.region || undefined);
    return (method, url, headers, body) => {
      if (b.s3Presigned(url)) return { url, headers: [] };
      const query = presign?.query || (this.querySigning && (method === "GET" || method === "HEAD"));
      return checked(b.s3Sign({ method, url, headers, body, region, credentials: creds, query: query || undefined, expires: presign?.expires }));
    };
  }

  /** Remembers the directory of a metadata document that was read. */
  noteRead(key) {
    if (!metadataDoc.test(key)) return;
    if (this.readDirs.size < maxReadDirs) this.readDirs.add(key.slice(0, key.lastIndexOf("/") + 1));
  }

  /** Whether a 403 for key means "absent": a metadata key, or one under a directory whose metadata was read. */
  deniedAbsent(key) {
    if (metadataDoc.test(key)) return true;
    for (let i = key.lastIndexOf("/"); i >= 0; i = key.lastIndexOf("/", i - 1)) {
      if (this.readDirs.has(key.slice(0, i + 1))) return true;
      if (i === 0) break;
    }
    return false;
  }

  /**
   * What an error answer means (see FetchStore): "absent", "denied" (an
   * absent key the server refused), or a failure {status, code, message,
   * retry, expired}: the code of Go's s3.Failure (ACCESS_DENIED,
   * NOT_FOUND, STORE); retry: another attempt may work; expired: new
   * credentials may.
   */
  async answer(method, url, key, status, headers, body, deniedAbsent) {
    const b = await engine();
    const m = this.mapped;
    const v = b.s3Answer(status, body, {
      missing: this.missing ?? undefined,
      deniedAbsent,
      request: `${method} ${url}`,
      where: key,
      bucket: m?.bucket ?? "",
      key: m?.bucket ? this.keyPrefix() + key.replace(/^\//, "") : "",
      bucketRegion: headers.get("x-amz-bucket-region") ?? "",
    });
    if (typeof v === "string") return v;
    return {
      status,
      code: v.code,
      message: String(v.message ?? "").replace(/^[A-Z_]+: /, ""),
      retry: !!v.retry,
      expired: !!v.expired && typeof this.credentialsOption === "function",
    };
  }

  /** The read-side extra of HTTPReader.read for key. */
  readExtra(key) {
    const sign = this.signer();
    const deniedAbsent = this.deniedAbsent(key);
    return {
      sign,
      onError: (url, status, headers, body) => this.answer("GET", url, key, status, headers, body, deniedAbsent),
      refresh: typeof this.credentialsOption === "function" ? () => this.credentials(true).then(() => this.signer()) : undefined,
    };
  }

  /**
   * Lists the names directly under prefix (absolute, "/" or "/a/") with
   * ListObjectsV2, through reader.
   */
  async list(reader, prefix) {
    await this.ready();
    const m = this.mapped;
    if (!m.bucket) {
      throw new ZarrError("UNSUPPORTED", `${m.url} is not known to be an object store's bucket, which could be listed (give an s3:// location, or the server's URL as the endpoint option)`, { where: prefix });
    }
    await startBuild("full"); // (listing is the full build's: jsbridge/objstore_full.go)
    const b = bridgeIfRunning();
    const id = checked(b.s3Listing(m.bucketUrl, this.keyPrefix() + prefix.slice(1), prefix));
    try {
      for (let u = checked(b.s3ListNext(id)); u; u = checked(b.s3ListNext(id))) {
        const extra = {
          sign: this.signer(),
          maxBody: maxListPage,
          onError: (url, status, headers, body) => this.answer("GET", url, prefix, status, headers, body, false),
          refresh: this.readExtra(prefix).refresh,
        };
        const page = await reader.read(u, null, undefined, false, undefined, extra);
        if (page === undefined) throw new ZarrError("NOT_FOUND", `listing bucket ${JSON.stringify(m.bucket)}: GET ${u} answered 404 (no such bucket?)`, { where: prefix });
        checked(b.s3ListAdd(id, page));
      }
      return checked(b.s3ListNames(id));
    } finally {
      b.release(id);
    }
  }

  /**
   * Whether writes may carry conditions: probes the server once
   * (s3.ConditionProbe) with write(method, key, body, condition).
   */
  async conditionsHonoured(write) {
    if (this.conditional !== undefined) return this.conditional;
    this.probing ??= (async () => {
      await startBuild("full"); // (the probe is the full build's, as writes are)
      const b = await engine();
      const probe = checked(b.s3ConditionProbe());
      let ok = true;
      try {
        for (const step of probe.steps) {
          const cond = step.ifNoneMatch ? ["If-None-Match", step.ifNoneMatch] : step.ifMatch ? ["If-Match", step.ifMatch] : null;
          const r = await write(step.method, `/${probe.key}`, step.method === "PUT" ? new Uint8Array(0) : null, cond);
          if (step.mustFail && !r.changed) ok = false;
          else if (!step.mustFail && r.changed) throw new ZarrError("STORE", `the conditional-write probe's ${step.method} of /${probe.key} was refused`);
        }
      } catch (e) {
        await write("DELETE", `/${probe.key}`, null, null).catch(() => {});
        throw e;
      } finally {
        this.probing = null;
      }
      this.conditional = ok;
      return ok;
    })();
    return this.probing;
  }
}
