import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_BASE_IMAGE, ensureBaseImage } from '../../core/runtime/baseImage';
import { familyImages } from '../../core/scaffolds/registry';
import type { FamilyImage } from '../../core/scaffolds/scaffold';
import { connectDocker } from '../../core/runtime/dockerConnection';
import { hasImage, localImageTags, pullImage } from '../../core/runtime/images';
import { recordedRepository } from '../../core/session/repositoryChoice';
import type { Task } from '../../core/trajectory/model';
import { configuredPath, readSettings, sandboxSettings, SECTION } from '../settings';

/** Setting: the repository sessions and bug checks copy into their containers when the recording names none. */
const REPOSITORY_SETTING = 'session.repository';
/** Setting: an image a session needs may be pulled from its registry (network). */
const ALLOW_PULL_SETTING = 'docker.allowPull';

const MISSING_IMAGE_CHOICES = {
  build: 'Build It',
  pull: 'Pull',
  local: 'Pick a Local Image',
  base: 'Use the Base Image',
} as const;

/** The choice of a family's own image (`Use the R2E-Gym Image`). */
const useImageOf = (title: string) => `Use the ${title} Image`;

/** A family's image, with the family's name as a person reads it. */
type OwnImage = { title: string; image: FamilyImage };

/** The images SWE Workbench builds offline itself (`swe-workbench image build`): the base one, and the families' own. */
const buildable = (image: string) => image === DEFAULT_BASE_IMAGE || familyImages().some((f) => f.image.tag === image);

/** The questions the choices ask; tests replace them to answer without the UI and count how often they are asked. */
export interface SessionPrompts {
  /** A repository folder among `folders` (the remembered one first), or another from a dialog. */
  pickRepository(folders: readonly string[], why: string): Promise<string | undefined>;
  /** An image among the engine's, or a typed name. */
  pickImage(images: readonly string[], title: string): Promise<string | undefined>;
  /** What to do about a missing image: one of `choices` (labels of MISSING_IMAGE_CHOICES) or undefined. */
  missingImage(message: string, choices: readonly string[]): Promise<string | undefined>;
  /** Whether to stop the running session `title` to start another (`verb`: "Fork", "Replay"). */
  confirmStop(title: string, verb: string): Promise<boolean>;
}

const defaultPrompts: SessionPrompts = {
  async pickRepository(folders, why) {
    const other = '$(folder-opened) Choose a folder…';
    const picked = await vscode.window.showQuickPick(
      [...folders.map((f) => ({ label: path.basename(f), description: f, dir: f as string | undefined })), { label: other, dir: undefined }],
      { title: 'Repository to copy into the container', placeHolder: why, ignoreFocusOut: true },
    );
    if (!picked) return undefined;
    if (picked.dir) return picked.dir;
    return (await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Use as repository' }))?.[0]?.fsPath;
  },
  async pickImage(images, title) {
    const typed = '$(edit) Enter an image name…';
    // Kept open when focus moves: it is often opened by a notification's button, and the
    // notification closing hands focus back to the editor, which would dismiss the question.
    const picked = await vscode.window.showQuickPick([...images, typed], {
      title,
      placeHolder: 'Asked once: the answer is remembered for this workspace (or set sweWorkbench.docker.image)',
      ignoreFocusOut: true,
    });
    if (picked !== typed) return picked;
    return vscode.window.showInputBox({
      title,
      prompt: 'e.g. swebench/sweb.eval.x86_64.astropy_1776_astropy-12907',
      validateInput: (v) => (v.trim() ? undefined : 'an image name'),
      ignoreFocusOut: true,
    });
  },
  async missingImage(message, choices) {
    return vscode.window.showErrorMessage(message, ...choices);
  },
  async confirmStop(title, verb) {
    const stop = `Stop and ${verb}`;
    return (await vscode.window.showWarningMessage(`A session is running: ${title}. Stop it to ${verb.toLowerCase()}?`, { modal: true }, stop)) === stop;
  },
};

const REPOSITORY_KEY = 'sweWorkbench.repository';
const IMAGE_KEY = 'sweWorkbench.image';

/**
 * The repository and image a session (or a bug check) runs with, asked once: taken from the
 * recording when it names them, else a setting, else the person's answer, remembered per
 * trajectory and per workspace (workspaceState) and offered first next time. Never the first
 * workspace folder silently when there are several.
 */
export class SessionChoices {
  prompts: SessionPrompts = { ...defaultPrompts };

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The workspace's folders on disk. */
  static workspaceFolders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  /**
   * The host folder to copy into the container. `key` names what the answer is remembered for
   * (a trajectory's URI, a bug folder); `task` is the recording's, when there is one; `purpose`
   * the folder asked for when no recording names it ("the repository the bug belongs to").
   */
  async repository(options: { key?: string; task?: Task; folders?: readonly string[]; purpose?: string } = {}): Promise<string | undefined> {
    const folders = options.folders ?? SessionChoices.workspaceFolders();
    if (options.task) {
      const named = await recordedRepository(options.task, folders);
      if (named) {
        this.log.info(`repository ${named.dir}: ${named.reason}`);
        return named.dir;
      }
    }
    const configured = configuredPath(REPOSITORY_SETTING);
    if (configured) return configured;
    const perKey = options.key ? this.state.get<string>(`${REPOSITORY_KEY}:${options.key}`) : undefined;
    if (perKey && existsSync(perKey)) return perKey;
    if (folders.length === 1) return folders[0];
    const last = this.state.get<string>(REPOSITORY_KEY);
    const offered = last && existsSync(last) ? [last, ...folders.filter((f) => f !== last)] : [...folders];
    // Words about "the recording" only when a recording asks: a bug's checks have none.
    const several = options.task
      ? 'The workspace has several folders and the recording names none of them'
      : `The workspace has several folders: pick ${options.purpose ?? 'the repository to copy into the container'}`;
    const why = folders.length > 1 ? `${several}; the answer is remembered` : 'Open or choose the repository; the answer is remembered';
    const picked = await this.prompts.pickRepository(offered, why);
    if (!picked) return undefined;
    if (options.key) await this.state.update(`${REPOSITORY_KEY}:${options.key}`, picked);
    await this.state.update(REPOSITORY_KEY, picked);
    return picked;
  }

  /** The image: the recording's (or the one chosen instead of it when it was missing), the setting, else asked once and remembered. */
  async image(recorded?: string): Promise<string | undefined> {
    const named = recorded || readSettings().docker.image;
    if (named) return this.state.get<string>(`${IMAGE_KEY}:instead-of:${named}`) ?? named;
    const remembered = this.state.get<string>(IMAGE_KEY);
    if (remembered) return remembered;
    const images = await localImageTags(this.docker()).catch(() => [] as string[]);
    const picked = await this.prompts.pickImage(images, 'Image for the task container');
    if (picked) await this.state.update(IMAGE_KEY, picked);
    return picked?.trim() || undefined;
  }

  /**
   * The engine has no `image`: says what is needed and offers to build it (an image SWE Workbench
   * builds offline), pull it (when pulling is allowed), pick a local image or use the base image
   * (the family's own image for a run of a family whose tools need one, `own`); the image chosen
   * instead is remembered. Returns the image to start with now, or undefined when the person chose nothing.
   */
  async replaceMissingImage(image: string, why: string, own?: OwnImage): Promise<string | undefined> {
    const allowPull = vscode.workspace.getConfiguration(SECTION).get<boolean>(ALLOW_PULL_SETTING) === true;
    const canBuild = buildable(image);
    const instead = own ? useImageOf(own.title) : MISSING_IMAGE_CHOICES.base;
    const insteadImage = own ? own.image.tag : DEFAULT_BASE_IMAGE;
    const choices = [
      ...(canBuild ? [MISSING_IMAGE_CHOICES.build] : []),
      ...(allowPull && !canBuild ? [MISSING_IMAGE_CHOICES.pull] : []),
      MISSING_IMAGE_CHOICES.local,
      ...(canBuild ? [] : [instead]),
    ];
    const message = canBuild
      ? `SWE Workbench: ${why} needs the image '${image}', which is not on the Docker engine. Build it here, offline (about a minute), or pick a local image.`
      : `SWE Workbench: ${why} needs the image '${image}', which is not on the Docker engine. ` +
        (allowPull ? 'Pull it, ' : `Pulling is off (set sweWorkbench.${ALLOW_PULL_SETTING} to pull it); `) +
        `pick a local image, or use the ${own ? own.title : 'base'} image ${insteadImage} (the task's own environment is then missing).`;
    const choice = await this.prompts.missingImage(message, choices);
    let chosen: string | undefined;
    if (choice === MISSING_IMAGE_CHOICES.pull) {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `SWE Workbench: pulling ${image}`, cancellable: true },
        async (progress, token) => {
          const abort = new AbortController();
          token.onCancellationRequested(() => abort.abort());
          await pullImage(this.docker(), image, { signal: abort.signal, onProgress: (line) => progress.report({ message: line }) });
        },
      );
      chosen = image;
    } else if (choice === MISSING_IMAGE_CHOICES.local) {
      const images = await localImageTags(this.docker());
      if (images.length === 0) throw new Error('the Docker engine has no tagged image: pull one or build the base image (swe-workbench setup)');
      chosen = await this.prompts.pickImage(images, `Local image instead of ${image}`);
    } else if (choice === MISSING_IMAGE_CHOICES.build) chosen = await this.buildImage(image);
    else if (own && choice === instead) chosen = await this.buildImage(own.image.tag);
    else if (choice === MISSING_IMAGE_CHOICES.base) chosen = DEFAULT_BASE_IMAGE;
    if (chosen && chosen !== image) await this.state.update(`${IMAGE_KEY}:instead-of:${image}`, chosen);
    return chosen;
  }

  /** True when the engine says it has no `image` (an engine it cannot reach says nothing: false). */
  async imageMissing(image: string): Promise<boolean> {
    return (await hasImage(this.docker(), image)) === false;
  }

  /**
   * The image lacks what the scaffold's tools need, which the image `needed` has (R2E-Gym's tools,
   * their interpreter): offers that image (built here when missing), remembered instead of the
   * recording's image `recorded`. Undefined when the person declined.
   */
  async replaceForNeededImage(image: string, why: string, needed: { image: string; needs: string }, recorded: string | undefined): Promise<string | undefined> {
    const own = familyImages().find((f) => f.image.tag === needed.image);
    const use = own ? useImageOf(own.title) : `Use ${needed.image}`;
    const message =
      `SWE Workbench: ${why} runs ${needed.needs}; the image '${image}' has none. ` +
      `Use the ${own ? `${own.title} ` : ''}image ${needed.image} (built here, offline, when missing), or pick another local image.`;
    const choice = await this.prompts.missingImage(message, [use, MISSING_IMAGE_CHOICES.local]);
    let chosen: string | undefined;
    if (choice === use) chosen = own ? await this.buildImage(needed.image) : needed.image;
    else if (choice === MISSING_IMAGE_CHOICES.local)
      chosen = await this.prompts.pickImage(await localImageTags(this.docker()), `Local image instead of ${image}`);
    if (chosen && recorded && chosen !== recorded) await this.state.update(`${IMAGE_KEY}:instead-of:${recorded}`, chosen);
    return chosen;
  }

  /** Builds one of the images SWE Workbench builds offline (the base one first when needed), with progress; returns its tag. */
  private async buildImage(image: string): Promise<string> {
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `SWE Workbench: building ${image}`, cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        const onProgress = (line: string) => {
          this.log.info(line);
          progress.report({ message: line.slice(0, 120) });
        };
        const docker = this.docker();
        const own = familyImages().find((f) => f.image.tag === image);
        const result = own
          ? await own.image.ensure({ docker, signal: abort.signal, onProgress })
          : await ensureBaseImage({ docker, signal: abort.signal, onProgress });
        return result.tag;
      },
    );
  }

  private docker() {
    return connectDocker(sandboxSettings(readSettings()).docker);
  }
}
