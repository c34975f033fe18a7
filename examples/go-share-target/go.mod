module kspec.example/go-share-target

go 1.26
