// CF time coordinates as dates: a coordinate whose units read
// "<unit> since <date>" (CF conventions §4.4) counts time from that date in
// its calendar — standard (or gregorian: Julian before 1582-10-15),
// proleptic_gregorian, julian, noleap (365_day), all_leap (366_day) or
// 360_day. As cftime does, months count only in the 360_day calendar (30
// days; elsewhere their length is not a constant), years never; the
// standard and julian calendars have no year zero (1 BC is year -1).

const UNIT_DAYS = {
  day: 1, days: 1, d: 1,
  hour: 1 / 24, hours: 1 / 24, hr: 1 / 24, h: 1 / 24,
  minute: 1 / 1440, minutes: 1 / 1440, min: 1 / 1440,
  second: 1 / 86400, seconds: 1 / 86400, sec: 1 / 86400, s: 1 / 86400,
  millisecond: 1 / 86400e3, milliseconds: 1 / 86400e3, ms: 1 / 86400e3,
  microsecond: 1 / 86400e6, microseconds: 1 / 86400e6,
  week: 7, weeks: 7,
};
const CAL_MONTHS = { month: 30, months: 30 };

const CALENDARS = { standard: "standard", gregorian: "standard", proleptic_gregorian: "proleptic_gregorian", julian: "julian", noleap: "noleap", "365_day": "noleap", all_leap: "all_leap", "366_day": "all_leap", "360_day": "360_day" };

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Reads CF time units and a calendar: {days: length of one unit in days,
 * ref: the reference date's day number, calendar} or null (not a time
 * coordinate, or one this cannot count).
 */
export function parseTimeUnits(units, calendar = "standard") {
  if (typeof units !== "string") return null;
  const m = /^\s*([a-zA-Z]+)\s+since\s+([+-]?\d{1,6})-(\d{1,2})-(\d{1,2})(?:[T\s]+(\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?\s*(Z|UTC|[+-]\d{1,2}(?::?\d{2})?)?\s*$/i.exec(units);
  if (!m) return null;
  const cal = CALENDARS[String(calendar ?? "standard").toLowerCase()];
  if (!cal) return null;
  const unit = m[1].toLowerCase();
  const days = UNIT_DAYS[unit] ?? (cal === "360_day" ? CAL_MONTHS[unit] : undefined);
  if (days === undefined) return null;
  let [y, mo, d] = [Number(m[2]), Number(m[3]), Number(m[4])];
  if (y < 0 && (cal === "standard" || cal === "julian")) y += 1; // no year zero there
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  // Dates are shown in the reference's own time zone, as cftime shows them.
  const frac = ((Number(m[5] ?? 0) * 60 + Number(m[6] ?? 0)) * 60 + Number(m[7] ?? 0)) / 86400;
  return { days, ref: dayNumber(y, mo, d, cal) + frac, calendar: cal };
}

function isLeap(y, gregorian) {
  return gregorian ? (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 : y % 4 === 0;
}

/** Julian day number of a Gregorian (g) or Julian calendar date (year 0 is 1 BC). */
function jdn(y, m, d, g) {
  const a = Math.floor((14 - m) / 12);
  const yy = y + 4800 - a;
  const mm = m + 12 * a - 3;
  const base = d + Math.floor((153 * mm + 2) / 5) + 365 * yy + Math.floor(yy / 4);
  return g ? base - Math.floor(yy / 100) + Math.floor(yy / 400) - 32045 : base - 32083;
}

/** The date of a Julian day number in the Gregorian (g) or Julian calendar: [y, m, d]. */
function fromJdn(j, g) {
  let c;
  let b;
  if (g) {
    const a = j + 32044;
    b = Math.floor((4 * a + 3) / 146097);
    c = a - Math.floor((146097 * b) / 4);
  } else {
    b = 0;
    c = j + 32082;
  }
  const d = Math.floor((4 * c + 3) / 1461);
  const e = c - Math.floor((1461 * d) / 4);
  const m = Math.floor((5 * e + 2) / 153);
  return [100 * b + d - 4800 + Math.floor(m / 10), m + 3 - 12 * Math.floor(m / 10), e - Math.floor((153 * m + 2) / 5) + 1];
}

const GREGORIAN_START = 2299161; // 1582-10-15, the first Gregorian day of the standard calendar

/** A day number for a date: Julian day numbers for the real calendars, days since 0-01-01 for the fixed-length ones. */
function dayNumber(y, m, d, cal) {
  switch (cal) {
    case "proleptic_gregorian":
      return jdn(y, m, d, true);
    case "julian":
      return jdn(y, m, d, false);
    case "standard": {
      const g = jdn(y, m, d, true);
      return g >= GREGORIAN_START ? g : jdn(y, m, d, false);
    }
    case "360_day":
      return y * 360 + (m - 1) * 30 + (d - 1);
    default: {
      const leap = cal === "all_leap";
      let n = y * (leap ? 366 : 365);
      for (let k = 0; k < m - 1; k++) n += MONTH_DAYS[k] + (leap && k === 1 ? 1 : 0);
      return n + d - 1;
    }
  }
}

/** The date of a day number: [y, m, d]. */
function dateOf(n, cal) {
  switch (cal) {
    case "proleptic_gregorian":
      return fromJdn(n, true);
    case "julian":
      return fromJdn(n, false);
    case "standard":
      return fromJdn(n, n >= GREGORIAN_START);
    case "360_day":
      return [Math.floor(n / 360), Math.floor((n % 360) / 30) + 1, (n % 30) + 1];
    default: {
      const leap = cal === "all_leap";
      const len = leap ? 366 : 365;
      const y = Math.floor(n / len);
      let r = n - y * len;
      let m = 0;
      for (;;) {
        const days = MONTH_DAYS[m] + (leap && m === 1 ? 1 : 0);
        if (r < days) break;
        r -= days;
        m++;
      }
      return [y, m + 1, r + 1];
    }
  }
}

const pad = (x, n = 2) => String(x).padStart(n, "0");

/**
 * The date of value v of a time coordinate (parseTimeUnits' answer) as
 * text: "YYYY-MM-DD", with " HH:MM" or " HH:MM:SS" when not midnight
 * (rounded to the second).
 */
export function formatTime(v, t) {
  if (!t || !Number.isFinite(v)) return null;
  const total = t.ref + v * t.days;
  let day = Math.floor(total);
  let secs = Math.round((total - day) * 86400);
  if (secs >= 86400) {
    day += 1;
    secs -= 86400;
  }
  let [y, m, d] = dateOf(day, t.calendar);
  if (y <= 0 && (t.calendar === "standard" || t.calendar === "julian")) y -= 1;
  const date = `${y < 0 ? "-" : ""}${pad(Math.abs(y), 4)}-${pad(m)}-${pad(d)}`;
  if (!secs) return date;
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs % 3600) / 60);
  const ss = secs % 60;
  return `${date} ${pad(hh)}:${pad(mm)}${ss ? `:${pad(ss)}` : ""}`;
}
