/** A patch with markup in every place a patch carries text: paths, the hunk section, removed and added lines. */
export const HOSTILE_PATCH = `diff --git a/x<script>alert(1)</script>.py b/x<script>alert(1)</script>.py
--- a/x<script>alert(1)</script>.py
+++ b/x<script>alert(1)</script>.py
@@ -1,2 +1,2 @@ def <img src=x onerror=alert(2)>
-old = "<script>alert(3)</script>"
+new = "<img src=x onerror=alert(4)>"
 keep = '"&'
`;
