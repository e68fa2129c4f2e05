# lit configuration for CAKE's diagnostic tests (tests/lit/**/*.cake).
import os
import lit.formats

config.name = "cake"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cake", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.join(config.cake_source_dir, "tests", "lit")
config.test_exec_root = os.path.join(config.cake_binary_dir, "tests", "lit-out")

config.substitutions.append(("%cake", os.path.join(config.cake_binary_dir, "cake")))
config.substitutions.append(("%repo", config.cake_source_dir))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("FileCheck", config.filecheck))
# Keep colour and locale out of golden output.
config.environment["NO_COLOR"] = "1"
config.environment["LC_ALL"] = "C"
