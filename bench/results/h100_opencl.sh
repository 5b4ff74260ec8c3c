# Sourced by the H100 scripts beside it: NVIDIA's OpenCL driver registered as the only ICD
# (PoCL's file moved aside, so that "the first platform" cannot be the CPU), and the workbook's
# programs told to choose it (../shared/GPU.md).
mkdir -p /etc/OpenCL/vendors
nvidia_lib=$(ldconfig -p | grep -m1 'libnvidia-opencl.so.1 ' | awk '{print $NF}')
echo "${nvidia_lib:-libnvidia-opencl.so.1}" > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/icd-off && mv /etc/OpenCL/vendors/pocl.icd /tmp/icd-off/ 2>/dev/null
export WORKBOOK_PLATFORM=NVIDIA
