/** apt's sources as a Debian machine lists them (deb822 `.sources` stanzas or one-line `sources.list`). */

/** The first mirror serving `suite` in apt's deb822 sources or one-line sources.list text. */
export function debianMirror(sourcesText: string, suite: string): string | undefined {
  for (const stanza of sourcesText.split(/\n\s*\n/)) {
    const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'mi').exec(stanza)?.[1]?.trim().split(/\s+/) ?? [];
    if (field('Types').includes('deb') && field('Suites').includes(suite)) return field('URIs')[0];
  }
  for (const line of sourcesText.split('\n')) {
    const m = /^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
    if (m && m[2] === suite) return m[1];
  }
  return undefined;
}
