"""Validates ATIF files with the two reference readings of v1.7, for atifValidator.test.ts.

argv: the files. Prints one JSON line: for each file, the errors of Harbor's TrajectoryValidator
(harbor-6c9ba3f, whose models are ATIF v1.7) and of NVIDIA's nat.atif Trajectory model.
Both need pydantic 2 (Debian 13's python3-pydantic).
"""
import json
import sys

from pydantic import ValidationError

from harbor.utils.trajectory_validator import TrajectoryValidator
from nat.atif import Trajectory as NvidiaTrajectory

out = []
for path in sys.argv[1:]:
    harbor = TrajectoryValidator()
    harbor.validate(path, validate_images=False)
    with open(path) as f:
        data = json.load(f)
    try:
        NvidiaTrajectory.model_validate(data)
        nvidia = []
    except ValidationError as e:
        nvidia = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()]
    out.append({"file": path, "harbor": harbor.get_errors(), "nvidia": nvidia})
print(json.dumps(out))
