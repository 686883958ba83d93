// Explicit instantiations compiled into the tests' precompiled header (TowerbenchTargets.cmake,
// tb_pch_code): the class templates whose virtual members clang instantiates again at the end of
// every translation unit that takes <torch/torch.h> (the header's inline constructors mark their
// vtables used, and a header's pending vtables are only defined at the end of a whole file).
// That cost ~3 s in every test file, an empty one included. Instantiated here, in the header,
// and with -fpch-codegen compiled once into the header's own object, they cost a file nothing.
// The list is LibTorch 1.13's (found with clang's -ftime-trace on an empty file); with another
// LibTorch it is left out, and the files are only slower.
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#if TORCH_VERSION_MAJOR == 1 && TORCH_VERSION_MINOR == 13
template class c10::SingleElementType<c10::TypeKind::ListType, c10::ListType>;
template class c10::SingleElementType<c10::TypeKind::FutureType, c10::FutureType>;
template class c10::SingleElementType<c10::TypeKind::RRefType, c10::RRefType>;
template class torch::data::datasets::Dataset<torch::data::datasets::TensorDataset, torch::data::Example<at::Tensor, void>>;
template class torch::nn::Cloneable<torch::nn::ModuleDictImpl>;
template class torch::nn::Cloneable<torch::nn::ParameterDictImpl>;
template class torch::nn::Cloneable<torch::nn::SequentialImpl>;
template class torch::nn::Cloneable<torch::nn::LinearImpl>;
template class torch::nn::Cloneable<torch::nn::UnflattenImpl>;
template class torch::nn::Cloneable<torch::nn::BilinearImpl>;
template class torch::nn::Cloneable<torch::nn::SoftmaxImpl>;
template class torch::nn::Cloneable<torch::nn::SoftminImpl>;
template class torch::nn::Cloneable<torch::nn::LogSoftmaxImpl>;
template class torch::nn::Cloneable<torch::nn::ThresholdImpl>;
template class torch::nn::Cloneable<torch::nn::MultiheadAttentionImpl>;
template class torch::nn::Cloneable<torch::nn::AdaptiveLogSoftmaxWithLossImpl>;
template class torch::nn::Cloneable<torch::nn::Conv1dImpl>;
template class torch::nn::ConvNdImpl<1, torch::nn::Conv1dImpl>;
template class torch::nn::Cloneable<torch::nn::Conv2dImpl>;
template class torch::nn::ConvNdImpl<2, torch::nn::Conv2dImpl>;
template class torch::nn::Cloneable<torch::nn::Conv3dImpl>;
template class torch::nn::ConvNdImpl<3, torch::nn::Conv3dImpl>;
template class torch::nn::Cloneable<torch::nn::ConvTranspose1dImpl>;
template class torch::nn::ConvTransposeNdImpl<1, torch::nn::ConvTranspose1dImpl>;
template class torch::nn::ConvNdImpl<1, torch::nn::ConvTranspose1dImpl>;
template class torch::nn::Cloneable<torch::nn::ConvTranspose2dImpl>;
template class torch::nn::ConvTransposeNdImpl<2, torch::nn::ConvTranspose2dImpl>;
template class torch::nn::ConvNdImpl<2, torch::nn::ConvTranspose2dImpl>;
template class torch::nn::Cloneable<torch::nn::ConvTranspose3dImpl>;
template class torch::nn::ConvTransposeNdImpl<3, torch::nn::ConvTranspose3dImpl>;
template class torch::nn::ConvNdImpl<3, torch::nn::ConvTranspose3dImpl>;
template class torch::nn::Cloneable<torch::nn::EmbeddingImpl>;
template class torch::nn::Cloneable<torch::nn::EmbeddingBagImpl>;
template class torch::nn::Cloneable<torch::nn::FoldImpl>;
template class torch::nn::Cloneable<torch::nn::UnfoldImpl>;
template class torch::nn::Cloneable<torch::nn::LayerNormImpl>;
template class torch::nn::Cloneable<torch::nn::LocalResponseNormImpl>;
template class torch::nn::Cloneable<torch::nn::CrossMapLRN2dImpl>;
template class torch::nn::Cloneable<torch::nn::GroupNormImpl>;
template class torch::nn::Cloneable<torch::nn::ZeroPad2dImpl>;
template class torch::nn::Cloneable<torch::nn::FractionalMaxPool2dImpl>;
template class torch::nn::Cloneable<torch::nn::FractionalMaxPool3dImpl>;
template class torch::nn::Cloneable<torch::nn::RNNImpl>;
template class torch::nn::Cloneable<torch::nn::LSTMImpl>;
template class torch::nn::Cloneable<torch::nn::GRUImpl>;
template class torch::nn::Cloneable<torch::nn::RNNCellImpl>;
template class torch::nn::Cloneable<torch::nn::LSTMCellImpl>;
template class torch::nn::Cloneable<torch::nn::GRUCellImpl>;
template class torch::nn::Cloneable<torch::nn::TransformerEncoderLayerImpl>;
template class torch::nn::Cloneable<torch::nn::TransformerDecoderLayerImpl>;
template class torch::nn::Cloneable<torch::nn::TransformerEncoderImpl>;
template class torch::nn::Cloneable<torch::nn::TransformerDecoderImpl>;
template class torch::optim::OptimizerCloneableOptions<torch::optim::AdagradOptions>;
template class torch::optim::OptimizerCloneableOptions<torch::optim::AdamOptions>;
template class torch::optim::OptimizerCloneableOptions<torch::optim::AdamWOptions>;
template class torch::optim::OptimizerCloneableOptions<torch::optim::LBFGSOptions>;
template class torch::optim::OptimizerCloneableOptions<torch::optim::RMSpropOptions>;
template class torch::optim::OptimizerCloneableOptions<torch::optim::SGDOptions>;
#endif
