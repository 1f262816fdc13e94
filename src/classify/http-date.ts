// HTTP-date as RFC 9110 §5.6.7 defines it. Senders use IMF-fixdate; "a recipient that parses a
// timestamp value in an HTTP field MUST accept all three HTTP-date formats", so the two obsolete
// forms (RFC 850 and asctime) are read too. Nothing else is: `Date.parse` would read "tomorrow 5",
// "-5" or "3, 4" as some date and turn a server's hint into a wait of 0 ms.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// Sun, 06 Nov 1994 08:49:37 GMT
const IMF_FIXDATE = new RegExp(
  `^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`,
);
// Sunday, 06-Nov-94 08:49:37 GMT
const RFC_850 = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`,
);
// Sun Nov  6 08:49:37 1994
const ASCTIME = new RegExp(
  `^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (${MONTH}) (\\d{2}| \\d) ${TIME} (\\d{4})$`,
);

const FIFTY_YEARS_MS = 50 * 365.25 * 86_400_000;

function utc(
  year: number,
  month: string,
  day: string,
  h: string,
  m: string,
  s: string,
): number | undefined {
  const monthIndex = MONTHS.indexOf(month);
  const d = Number(day);
  const hours = Number(h);
  const minutes = Number(m);
  const seconds = Number(s);
  // 60 is a leap second (RFC 9110 allows it); anything else out of range is not a date.
  if (d < 1 || hours > 23 || minutes > 59 || seconds > 60) return undefined;
  const at = Date.UTC(year, monthIndex, d, hours, minutes, seconds);
  // 31 Feb and the like roll over into the next month: not a real date.
  return new Date(at).getUTCDate() === d || seconds === 60 ? at : undefined;
}

/**
 * @internal Milliseconds since the epoch of an HTTP-date (IMF-fixdate, or the obsolete RFC 850 and
 * asctime forms), or undefined for anything else. Case-sensitive, as the grammar is.
 *
 * @example
 * parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT') // 784111777000
 */
export function parseHttpDate(text: string, now: number = Date.now()): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match !== null)
    return utc(Number(match[3]), match[2]!, match[1]!, match[4]!, match[5]!, match[6]!);
  match = RFC_850.exec(text);
  if (match !== null) {
    // A two-digit year more than 50 years ahead means the most recent past year with those digits.
    const yy = Number(match[3]);
    const century = Math.floor(new Date(now).getUTCFullYear() / 100) * 100;
    let at = utc(century + yy, match[2]!, match[1]!, match[4]!, match[5]!, match[6]!);
    if (at !== undefined && at - now > FIFTY_YEARS_MS)
      at = utc(century - 100 + yy, match[2]!, match[1]!, match[4]!, match[5]!, match[6]!);
    return at;
  }
  match = ASCTIME.exec(text);
  if (match !== null)
    return utc(Number(match[6]), match[1]!, match[2]!.trim(), match[3]!, match[4]!, match[5]!);
  return undefined;
}
