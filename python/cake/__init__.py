"""CAKE from Python. `cake.kmeans`: batched KMeans on PyTorch CUDA tensors through libcake_kmeans.so
(docs/kmeans-library.md); `cake.knn`: exact KNN search through libcake_knn.so (docs/knn-library.md)."""
