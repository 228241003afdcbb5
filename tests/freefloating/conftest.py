import sys
from pathlib import Path

# The oracle helpers live next to the tests (tests are not a package of the project).
sys.path.insert(0, str(Path(__file__).parent))
