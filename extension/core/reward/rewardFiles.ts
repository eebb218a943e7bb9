/**
 * The reward's inputs read from files (task instances, SWE-bench / SWE-smith reports) through the
 * input layer. Apart from instance.ts and reports.ts, which are pure, so the presenters use their
 * types without Node.
 */
import { InputError } from '../errors';
import { readInputText } from '../input/readInput';
import { TaskInstanceSchema, type TaskInstance } from './instance';
import { parseReport, type Report } from './reports';
import { parseJsonText, parseWithSchema, readJsonFile } from './schemaInput';

/** Reads one instance, a list of instances, or JSON Lines (one instance a line); the file is read once (it may be a pipe). */
export async function readTaskInstances(file: string): Promise<TaskInstance[]> {
  const { text } = await readInputText(file);
  if (text.trim() === '') throw new InputError(file, undefined, 'empty file');
  let value: unknown;
  try {
    value = parseJsonText(text, file);
  } catch (err) {
    // Only a JSON syntax error may mean JSON Lines; a depth limit does not.
    if (!(err instanceof InputError) || /nested deeper/.test(err.problem) || !text.trimEnd().includes('\n')) throw err;
    value = jsonLines(text, file, err);
  }
  if (Array.isArray(value)) return value.map((v, i) => parseWithSchema(TaskInstanceSchema, v, file, [i]));
  return [parseWithSchema(TaskInstanceSchema, value, file)];
}

/** Each non-blank line parsed; when the first line is not JSON either, the whole-file error stands. */
function jsonLines(text: string, file: string, wholeFileError: InputError): unknown[] {
  const values: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.trim()) continue;
    try {
      values.push(parseJsonText(lines[i]!, file, i + 1));
    } catch (err) {
      if (values.length === 0) throw wholeFileError;
      throw err;
    }
  }
  return values;
}

/** Picks one instance by id from a file, or the only one it holds. */
export async function readTaskInstance(file: string, instanceId?: string): Promise<TaskInstance> {
  const all = await readTaskInstances(file);
  const found = instanceId === undefined ? (all.length === 1 ? all[0] : undefined) : all.find((i) => i.instance_id === instanceId);
  if (found) return found;
  const problem = instanceId === undefined ? `holds ${all.length} instances; name one` : `no instance '${instanceId}'`;
  throw new InputError(file, undefined, problem);
}

/** A report file, whichever of the shapes parseReport tells apart. */
export async function readReport(file: string): Promise<Report> {
  return parseReport(await readJsonFile(file), file);
}
