import type * as vscode from 'vscode';

/** Owns disposables and releases them together, in reverse order of registration. */
export abstract class Disposable implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  protected _register<T extends vscode.Disposable>(value: T): T {
    if (this.disposed) value.dispose();
    else this.disposables.push(value);
    return value;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables.splice(0).reverse()) d.dispose();
  }
}
