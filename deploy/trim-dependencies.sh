#!/bin/sh
# Remove from the image's Python environment what the served app never loads (issue 14.5).
# Run by the Dockerfile right after `pip install -r requirements.txt`, in the same layer.
#   PYTHON=/path/to/python sh deploy/trim-dependencies.sh   # default: python on PATH
#
# What goes, and why it is safe (docs/hosting.md says how this was checked:
# a server on the trimmed environment served every page, with -X importtime and its
# /proc/<pid>/maps listing what it imported and which shared libraries it loaded):
# - pydeck and altair with altair's own dependencies: Streamlit's map and chart
#   extras; no relpos page calls st.pydeck_chart, st.altair_chart or st.*_chart
#   (tests/test_deploy.py fails if one starts to), and Streamlit imports them lazily;
# - every installed `tests` folder (NumPy's, pandas', pyarrow's …): never imported;
# - pyarrow's C++ headers and the parts of pyarrow the app never loads: Arrow Flight
#   (RPC), the S3/GCS/Azure/HDFS file systems, ORC files and pyarrow's C++ test module.
set -eu
PYTHON="${PYTHON:-python}"
site="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

"$PYTHON" -m pip uninstall --yes --quiet \
    pydeck altair jsonschema jsonschema-specifications referencing rpds-py attrs

find "$site" -depth -type d -name tests -exec rm -rf {} +
cd "$site/pyarrow"
rm -rf include \
    _flight.* flight.py libarrow_flight.so* libarrow_python_flight.so* \
    _s3fs.* libarrow_s3.so* _gcsfs.* _azurefs.* _hdfs.* \
    _orc.* orc.py _dataset_orc.* \
    _pyarrow_cpp_tests.*
