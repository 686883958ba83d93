# cmake -DCLI=... -DSOURCE=... -DWORK=... -P HeadlessTrain.cmake: the synthetic project trained
# by the headless CLI for one epoch, resumed for a second, evaluated and exported; fails with
# the command's output on the first problem.
file(REMOVE_RECURSE "${WORK}")
set(project "${SOURCE}/projects/synthetic-mlp.json")
set(run "${WORK}/run")
function(cli)
  execute_process(COMMAND "${CLI}" ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "towerbench-cli ${ARGN}: exit ${status}\n${out}\n${err}")
  endif()
  set(cli_output "${out}${err}" PARENT_SCOPE)
endfunction()

cli(train "${project}" --run-dir "${run}" --max-epoch 1 --steps-per-epoch 16
    --set "run_root=${WORK}")
cli(train "${project}" --run-dir "${run}" --resume --max-epoch 2 --steps-per-epoch 16
    --set "run_root=${WORK}")
if(NOT EXISTS "${run}/model-32.pt")
  message(FATAL_ERROR "no model-32.pt after the resumed epoch in ${run}")
endif()
cli(eval "${project}" --checkpoint "${run}/model-32.pt")
if(NOT cli_output MATCHES "validation_error")
  message(FATAL_ERROR "eval printed no validation_error:\n${cli_output}")
endif()
cli(export "${run}/model-32.pt" --format torchscript --out "${WORK}/net.pt")
if(NOT EXISTS "${WORK}/net.pt")
  message(FATAL_ERROR "export wrote no ${WORK}/net.pt")
endif()
