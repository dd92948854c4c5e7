// The volume renderer: WebGL2 ray marching through 3-D textures (one R32F
// texture per channel, up to four, sampled nearest so a projection shows
// the stored values). Each screen pixel casts a ray along the view
// (orthographic camera) through the crop box (the voxels whose centres lie
// in it), at most a voxel a step; "mip" keeps each
// channel's maximum along the ray, "alpha" composites front to back. A
// channel's value v becomes t = clamp((v − lo)/(hi − lo)), drawn as its
// colour × t and the channels added (as the 2D composite does), or through
// a colormap for a single array.

export const MAX_CHANNELS = 4;

const VERT = `#version 300 es
in vec2 pos;
void main() { gl_Position = vec4(pos, 0.0, 1.0); }`;

/**
 * The fragment shader for nch channels in a mode: the channel loop is
 * written out (software GL runs a shader without branches and dynamic
 * indexing several times faster).
 */
function fragment(nch, alpha, lut) {
  const ch = [...Array(nch).keys()];
  const each = (f) => ch.map(f).join("\n  ");
  const samplers = ch.map((c) => `uniform sampler3D vol${c};`).join("\n");
  const shade = lut
    ? "texture(lut, vec2((t0 * 255.0 + 0.5) / 256.0, 0.5)).rgb"
    : `min(${ch.map((c) => `colors[${c}] * t${c}`).join(" + ")}, vec3(1.0))`;
  const level = (c, v) => `clamp((${v} - limits[${c}].x) / max(limits[${c}].y - limits[${c}].x, 1e-30), 0.0, 1.0) * visible[${c}]`;
  const body = alpha
    ? `${each((c) => `float t${c} = ${level(c, `texture(vol${c}, p).r`)};`)}
    float amax = max(${ch.map((c) => `t${c}`).join(", max(")}, 0.0${")".repeat(nch)};
    float alpha = 1.0 - pow(1.0 - min(amax * density, 0.999), stepVox);
    acc.rgb += (1.0 - acc.a) * alpha * ${shade};
    acc.a += (1.0 - acc.a) * alpha;
    if (acc.a > 0.995) break;`
    : each((c) => `m${c} = max(m${c}, texture(vol${c}, p).r);`);
  const end = alpha
    ? "outColor = vec4(acc.rgb, 1.0);"
    : `${each((c) => `float t${c} = ${level(c, `m${c}`)};`)}
  outColor = vec4(${shade}, 1.0);`;
  return `#version 300 es
precision highp float;
precision highp sampler3D;
${samplers}
uniform sampler2D lut;
uniform vec3 colors[4];
uniform vec2 limits[4];   // lo, hi
uniform float visible[4]; // 1 shown, 0 hidden
uniform mat4 pixToTex;    // (css px x, css px y, view depth, 1) -> texture coordinates
uniform vec3 boxLo, boxHi; // the crop box, on voxel boundaries
uniform vec3 voxels;      // the level's size (x, y, z)
uniform float dpr, heightCss;
uniform float density;    // alpha mode: opacity per voxel of a fully bright sample
out vec4 outColor;

void main() {
  vec2 px = vec2(gl_FragCoord.x / dpr, heightCss - gl_FragCoord.y / dpr);
  vec3 a = (pixToTex * vec4(px, 2.0, 1.0)).xyz;   // near
  vec3 b = (pixToTex * vec4(px, -2.0, 1.0)).xyz;  // far
  vec3 d = b - a;
  vec3 inv = 1.0 / d;
  vec3 s0 = (boxLo - a) * inv;
  vec3 s1 = (boxHi - a) * inv;
  vec3 tmin = min(s0, s1);
  vec3 tmax = max(s0, s1);
  float enter = max(max(tmin.x, tmin.y), max(tmin.z, 0.0));
  float leave = min(min(tmax.x, tmax.y), min(tmax.z, 1.0));
  if (enter >= leave) { outColor = vec4(0.0, 0.0, 0.0, 1.0); return; }
  // Samples at most one voxel apart, in the middle of equal steps: along
  // an axis, one at each voxel's centre.
  float lenVox = length((leave - enter) * d * voxels);
  int steps = max(1, int(ceil(lenVox - 1e-3)));
  float dt = (leave - enter) / float(steps);
  float stepVox = lenVox / float(steps);
  ${alpha ? "vec4 acc = vec4(0.0);" : ch.map((c) => `float m${c} = -3.4e38;`).join(" ")}
  for (int i = 0; i < steps; i++) {
    vec3 p = a + d * (enter + dt * (float(i) + 0.5));
    ${body}
  }
  ${end}
}`;
}

function compile(gl, type, src) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(`volume shader: ${gl.getShaderInfoLog(s)}`);
  return s;
}

export class VolumeRenderer {
  /** @param {HTMLCanvasElement} canvas */
  constructor(canvas) {
    const gl = canvas.getContext("webgl2", { preserveDrawingBuffer: true, antialias: false });
    if (!gl) throw new Error("WebGL2 is not available in this browser");
    this.gl = gl;
    this.canvas = canvas;
    this.programs = new Map(); // "nch/alpha/lut" → {prog, u}
    const buf = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
    this.vao = gl.createVertexArray();
    gl.bindVertexArray(this.vao);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
    this.textures = [];
    this.lutTex = gl.createTexture();
    /** The largest 3-D texture side this GPU takes. */
    this.max3D = gl.getParameter(gl.MAX_3D_TEXTURE_SIZE);
  }

  /** The program for nch channels in a mode, compiled on first use. */
  #program(nch, alpha, lut) {
    const key = `${nch}/${alpha}/${lut}`;
    let pr = this.programs.get(key);
    if (pr) return pr;
    const gl = this.gl;
    const p = gl.createProgram();
    gl.attachShader(p, compile(gl, gl.VERTEX_SHADER, VERT));
    gl.attachShader(p, compile(gl, gl.FRAGMENT_SHADER, fragment(nch, alpha, lut)));
    gl.bindAttribLocation(p, 0, "pos");
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(`volume shader: ${gl.getProgramInfoLog(p)}`);
    const u = {};
    for (const n of ["vol0", "vol1", "vol2", "vol3", "lut", "colors", "limits", "visible", "pixToTex", "boxLo", "boxHi", "voxels", "dpr", "heightCss", "density"]) u[n] = gl.getUniformLocation(p, n);
    pr = { prog: p, u };
    this.programs.set(key, pr);
    return pr;
  }

  /** Uploads channels: Float32Array each, of size nx·ny·nz (x fastest). */
  setVolume(channels, [nx, ny, nz]) {
    const gl = this.gl;
    for (const t of this.textures) gl.deleteTexture(t);
    this.textures = channels.map((data) => {
      const t = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_3D, t);
      gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
      gl.texImage3D(gl.TEXTURE_3D, 0, gl.R32F, nx, ny, nz, 0, gl.RED, gl.FLOAT, data);
      for (const [k, v] of [[gl.TEXTURE_MIN_FILTER, gl.NEAREST], [gl.TEXTURE_MAG_FILTER, gl.NEAREST], [gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_R, gl.CLAMP_TO_EDGE]]) gl.texParameteri(gl.TEXTURE_3D, k, v);
      return t;
    });
    this.voxels = [nx, ny, nz];
  }

  /** A colormap (256 RGB triples) for a single channel. */
  setLut(rgb) {
    const gl = this.gl;
    gl.bindTexture(gl.TEXTURE_2D, this.lutTex);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGB8, 256, 1, 0, gl.RGB, gl.UNSIGNED_BYTE, rgb);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  }

  /**
   * Draws. s: {pixToTex (16 numbers, column-major), crop: {lo, hi} (texture
   * coordinates: the voxels whose centres lie in it are drawn), channels: [{color [r,g,b] 0-255, lo, hi, visible}],
   * useLut, alpha, density, cssWidth, cssHeight, dpr}.
   */
  draw(s) {
    const gl = this.gl;
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0, 0, 0, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    const nch = this.textures.length;
    if (!nch) return;
    const { prog, u } = this.#program(nch, !!s.alpha, !!s.useLut);
    gl.useProgram(prog);
    gl.bindVertexArray(this.vao);
    for (let c = 0; c < nch; c++) {
      gl.activeTexture(gl.TEXTURE0 + c);
      gl.bindTexture(gl.TEXTURE_3D, this.textures[c]);
      gl.uniform1i(u[`vol${c}`], c);
    }
    gl.activeTexture(gl.TEXTURE0 + MAX_CHANNELS);
    gl.bindTexture(gl.TEXTURE_2D, this.lutTex);
    gl.uniform1i(u.lut, MAX_CHANNELS);
    const colors = new Float32Array(12);
    const limits = new Float32Array(8);
    const vis = new Float32Array(4);
    s.channels.slice(0, MAX_CHANNELS).forEach((c, k) => {
      colors.set(c.color.map((x) => x / 255), 3 * k);
      limits.set([c.lo, c.hi], 2 * k);
      vis[k] = c.visible ? 1 : 0;
    });
    gl.uniform3fv(u.colors, colors);
    gl.uniform2fv(u.limits, limits);
    gl.uniform1fv(u.visible, vis);
    gl.uniformMatrix4fv(u.pixToTex, false, s.pixToTex);
    // The crop box on voxel boundaries: from the first voxel whose centre is in it to the last.
    const lo = [];
    const hi = [];
    this.voxels.forEach((n, k) => {
      const first = Math.max(0, Math.ceil(s.crop.lo[k] * n - 0.5));
      const last = Math.min(n - 1, Math.floor(s.crop.hi[k] * n - 0.5));
      lo.push(first / n);
      hi.push(Math.max(first, last + 1) / n);
    });
    gl.uniform3fv(u.boxLo, lo);
    gl.uniform3fv(u.boxHi, hi);
    gl.uniform3fv(u.voxels, this.voxels);
    gl.uniform1f(u.dpr, s.dpr);
    gl.uniform1f(u.heightCss, s.cssHeight);
    gl.uniform1f(u.density, s.density);
    gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
  }

  dispose() {
    const gl = this.gl;
    for (const t of this.textures) gl.deleteTexture(t);
    this.textures = [];
  }
}
