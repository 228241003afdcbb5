import sys
from pathlib import Path

# The contract fixture lives next to the tests (tests are not a package of the project;
# pytest runs in importlib mode because test basenames repeat across folders).
sys.path.insert(0, str(Path(__file__).parent))
